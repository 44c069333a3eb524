import { processWaits, type DaplJob } from '@dapl/core';
import { requestWaitHold } from '../adi/request-core.js';

/** What `finalizeAtExit` needs of the library. */
export interface Finalizable {
  readonly rank: number;
  finalize(): Promise<void>;
  /** Sends of this rank still in flight (their progress may be what the program's code awaits). */
  sendsInFlight(): boolean;
  /** Settles when no send is in flight. */
  drain(): Promise<void>;
  /** How long to hold the process for sends in flight before finalizing anyway (ms). */
  readonly drainBoundMs: number;
}

/**
 * A program that ends without `mpi.finalize()` is finalized at exit, with a warning, as mpi4py does
 * (issue: over tcp it hung for ever). The IA's sockets stop holding the process: every MPI wait is
 * declared to the runtime, which holds it instead. So once the program's code has ended and no MPI
 * call waits, the event loop empties, Node emits 'beforeExit', and finalize runs then. Sends still in
 * flight then hold the process first (up to `drainBoundMs`): a program may be awaiting their
 * progress through something that declares no wait. A finalize that fails sets exit code 1 with its
 * message. Returns the function that removes the hook (an explicit finalize calls it).
 */
export function finalizeAtExit(mpi: Finalizable, job: DaplJob): () => void {
  // Whoever awaits a request holds the process, declared or not; the sockets no longer do.
  requestWaitHold.hold = () => processWaits.hold();
  requestWaitHold.release = () => processWaits.release();
  job.ia.keepProcessAlive?.(false);
  let heldForSends = false;
  const atExit = (): void => {
    if (!heldForSends && mpi.sendsInFlight()) {
      heldForSends = true;
      // A ref'd timer holds the process; when the sends drain it goes, and 'beforeExit' comes again.
      const hold = setTimeout(() => undefined, mpi.drainBoundMs);
      void mpi.drain().then(() => {
        clearTimeout(hold);
        heldForSends = false;
      });
      return;
    }
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
