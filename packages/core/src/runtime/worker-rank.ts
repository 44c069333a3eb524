import type { Duplex } from 'node:stream';

/**
 * A rank that runs as a worker thread of the launcher's process (`dapl run` with a provider whose
 * capabilities say `workerThreads`, such as shm): its place in the job, and its PMI conversation with
 * the launcher's main thread, carried over a MessagePort instead of an inherited socket.
 */
export interface WorkerRank {
  readonly rank: number;
  readonly size: number;
  /** The rank's end of its PMI stream; can be opened once (one runtime per rank, as with PMI_FD). */
  openPmiStream(): Duplex;
}

/**
 * A BroadcastChannel name on which the launcher posts `{ threadId, code }` when a rank's worker
 * thread has ended, for any reason: what a provider whose peers are threads hears instead of a
 * socket closing when a peer dies.
 */
export const THREAD_EXIT_CHANNEL = 'dapl:worker-rank-exits';

/** One message on `THREAD_EXIT_CHANNEL`. */
export interface ThreadExitNotice {
  readonly threadId: number;
  readonly code: number;
}

// Per thread (each worker has its own globalThis), and shared by every copy of core the thread loads.
const SLOT = Symbol.for('@dapl/core/worker-rank');
type WithSlot = { [SLOT]?: WorkerRank };

/** This thread's rank when it is a worker-thread rank of `dapl run`, else undefined. */
export function workerRank(): WorkerRank | undefined {
  return (globalThis as WithSlot)[SLOT];
}

/** @internal The worker bootstrap declares its rank before it imports the program. */
export function setWorkerRank(rank: WorkerRank): void {
  (globalThis as WithSlot)[SLOT] = rank;
}
