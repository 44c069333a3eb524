import type { InterfaceAdapter } from '../src/dat/index.js';
import { describeProviderConformance } from '../src/testing/index.js';
import { createLoopbackProvider } from '../src/testing/loopback/index.js';
import type { LoopbackIa } from '../src/testing/loopback/index.js';

const provider = createLoopbackProvider();

describeProviderConformance({
  name: 'loopback',
  provider,
  openIa: (options) => provider.openIa(options),
  openPair: (options) => provider.openPair(options),
  crash: (ia: InterfaceAdapter) => (ia as LoopbackIa).crash(),
  openForeignIa: () => provider.openIa({ jobKey: new Uint8Array(32).fill(7) }),
  waitMs: 2000,
});
