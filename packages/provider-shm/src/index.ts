/**
 * @packageDocumentation
 * `@dapl/provider-shm`: DAT between ranks that are worker threads of one process (`dapl run
 * --provider shm`). Each connection is a pair of single-producer single-consumer rings in a
 * SharedArrayBuffer; a rank polls its rings for `spinUs` after activity, then sleeps in
 * `Atomics.waitAsync` on its doorbell. The target applies sends, RDMA writes and reads to its own
 * memory after the RMR table's checks. `pz.allocate(bytes)` returns SharedArrayBuffer memory.
 *
 * @example
 * ```ts
 * import { shmProvider } from '@dapl/provider-shm';
 * const ia = await shmProvider.openIa({ parameters: { spinUs: 200 } });
 * ```
 */
export { shmProvider, shmProvider as default, shmProvider as provider } from './provider.js';
export { SHM_PARAMETERS, type ShmParameters } from './params.js';
export type { ShmIa } from './ia.js';
