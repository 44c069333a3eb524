import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import type { InterfaceAdapter } from '@dapl/core';
import { combufProvider } from '../src/index.js';
import type { CombufIa } from '../src/ia.js';

const jobKey = randomBytes(32);

describeProviderConformance({
  name: 'combuf',
  provider: combufProvider,
  openIa: (options) => combufProvider.openIa({ jobKey, ...options }),
  crash: (ia: InterfaceAdapter) => (ia as CombufIa).crash(),
  openForeignIa: () => combufProvider.openIa({ jobKey: randomBytes(32) }),
});
