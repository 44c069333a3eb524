import type { DaplJob } from '@dapl/core';

/** What `finalizeAtExit` needs of the library. */
export interface Finalizable {
  readonly rank: number;
  finalize(): Promise<void>;
}

/**
 * A program that ends without `mpi.finalize()` is finalized at exit, with a warning, as mpi4py does
 * (issue: over tcp it hung for ever). The IA's sockets stop holding the process (every MPI wait is
 * declared to the runtime, which holds it instead), so once the program's code has ended and no MPI
 * call is waiting the event loop empties, Node emits 'beforeExit', and finalize runs then. A finalize
 * that fails (a send nobody receives, a peer gone) sets exit code 1 with its message. Returns the
 * function that removes the hook (an explicit finalize calls it).
 */
export function finalizeAtExit(mpi: Finalizable, job: DaplJob): () => void {
  job.ia.keepProcessAlive?.(false);
  const atExit = (): void => {
    process.off('beforeExit', atExit);
    process.stderr.write(`dapl: rank ${mpi.rank}: the program ended without calling mpi.finalize(); finalizing at exit (finalize is collective: call it in every rank)\n`);
    mpi.finalize().catch((error: unknown) => {
      process.stderr.write(`dapl: rank ${mpi.rank}: finalize at exit failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    });
  };
  process.on('beforeExit', atExit);
  return () => process.off('beforeExit', atExit);
}
