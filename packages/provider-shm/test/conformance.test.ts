import { randomBytes } from 'node:crypto';
import { describeProviderConformance } from '@dapl/core/testing';
import { shmProvider, type ShmIa } from '../src/index.js';

const jobKey = randomBytes(32);
/** DAPL_SHM_CONFORMANCE_SPIN=on runs the suite with polling (each IA polls 50 µs after activity). */
const SPIN = process.env.DAPL_SHM_CONFORMANCE_SPIN === 'on' ? { spin: 'on', spinUs: 50 } : {};

describeProviderConformance({
  name: 'shm',
  provider: shmProvider,
  openIa: (options) => shmProvider.openIa({ jobKey, ...options, parameters: { ...SPIN, ...options?.parameters } }),
  // The IA posts the loss notice the launcher posts when a rank's thread ends, then vanishes.
  crash: (ia) => (ia as ShmIa).crash(),
  openForeignIa: () => shmProvider.openIa({ jobKey: randomBytes(32) }),
});
