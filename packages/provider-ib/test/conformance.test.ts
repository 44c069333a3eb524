import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import type { InterfaceAdapter } from '@dapl/core';
import { ibProvider } from '../src/index.js';
import type { IbIa } from '../src/ia.js';

const jobKey = randomBytes(32);

describeProviderConformance({
  name: 'ib',
  provider: ibProvider,
  openIa: (options) => ibProvider.openIa({ jobKey, ...options }),
  crash: (ia: InterfaceAdapter) => (ia as IbIa).crash(),
  openForeignIa: () => ibProvider.openIa({ jobKey: randomBytes(32) }),
});
