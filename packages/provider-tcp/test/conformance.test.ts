import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import { tcpProvider } from '../src/index.js';

const jobKey = randomBytes(32);

describeProviderConformance({
  name: 'tcp',
  provider: tcpProvider,
  openIa: (options) => tcpProvider.openIa({ jobKey, ...options }),
  // Closing an IA destroys its sockets without a DISCONNECT frame: to the peer it is a lost process.
  crash: (ia) => ia.close(),
  openForeignIa: () => tcpProvider.openIa({ jobKey: randomBytes(32) }),
  maxBufferedBytes: 1024 * 1024,
});
