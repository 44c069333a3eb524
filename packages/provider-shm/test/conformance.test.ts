import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import { shmProvider, type ShmIa } from '../src/index.js';

const jobKey = randomBytes(32);

/**
 * The suite twice: as an idle job runs (the default `spin=auto` outside a launcher: sleep at once,
 * `dequeuePollUs` 0), and polling (each IA polls 50 µs after activity, and `evd.dequeue()` polls
 * the rings: `dequeuePollUs` 50).
 */
for (const [name, spin] of [
  ['shm', {}],
  ['shm (spin on)', { spin: 'on', spinUs: 50 }],
] as const) {
  describeProviderConformance({
    name,
    provider: shmProvider,
    openIa: (options) => shmProvider.openIa({ jobKey, ...options, parameters: { ...spin, ...options?.parameters } }),
    // The IA posts the loss notice the launcher posts when a rank's thread ends, then vanishes.
    crash: (ia) => (ia as ShmIa).crash(),
    openForeignIa: () => shmProvider.openIa({ jobKey: randomBytes(32) }),
  });
}
