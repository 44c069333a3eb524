import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import type { InterfaceAdapter } from '@dapl/core';
import { lapiProvider } from '../src/index.js';
import type { LapiIa } from '../src/ia.js';

const jobKey = randomBytes(32);

describeProviderConformance({
  name: 'lapi',
  provider: lapiProvider,
  openIa: (options) => lapiProvider.openIa({ jobKey, ...options }),
  crash: (ia: InterfaceAdapter) => (ia as LapiIa).crash(),
  openForeignIa: () => lapiProvider.openIa({ jobKey: randomBytes(32) }),
});
