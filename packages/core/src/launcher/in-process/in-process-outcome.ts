import { describeFailure, exitCodeOf, type JobFailure, type JobOutcome } from '../job-outcome.js';
import { RunExitCode } from '../exit-codes.js';

/**
 * How an in-process job ended: as a job of processes, plus what only happens in one process —
 * a rank whose code ended after using its runtime without finalizing it (what a process would
 * report as a PMI connection closed without finalize), and a driver (the simulator's kernel) that
 * failed, e.g. on a deadlock.
 */
export type InProcessOutcome =
  | JobOutcome
  | { readonly kind: 'rank-unfinalized'; readonly rank: number; readonly atMs: number; readonly running: number }
  | { readonly kind: 'driver-failed'; readonly message: string; readonly atMs: number; readonly running: number };

export type InProcessFailure = Exclude<InProcessOutcome, { kind: 'completed' }>;

/** The exit code of `dapl run --in-process`: the same rules as with processes; 1 for the in-process-only failures. */
export function inProcessExitCode(outcome: InProcessOutcome): number {
  if (outcome.kind === 'rank-unfinalized' || outcome.kind === 'driver-failed') return RunExitCode.FAILURE;
  return exitCodeOf(outcome);
}

/** The one line printed when an in-process job ends early; the same lines as `describeFailure` where the two agree. */
export function describeInProcessFailure(failure: InProcessFailure): string {
  const after = `after ${(failure.atMs / 1000).toFixed(2)} s`;
  switch (failure.kind) {
    case 'rank-unfinalized':
      return `dapl run: rank ${failure.rank} ended without finalizing its runtime ${after}${stoppingOthers(failure.running)}\n`;
    case 'driver-failed':
      return `dapl run: ${failure.message.replace(/\s*\n\s*/g, ' ').trim()} ${after}${stoppingRunning(failure.running)}\n`;
    default:
      return describeFailure(failure as JobFailure);
  }
}

function stoppingOthers(running: number): string {
  if (running === 0) return '';
  return running === 1 ? '; stopping the other rank' : `; stopping the other ${running} ranks`;
}

function stoppingRunning(running: number): string {
  if (running === 0) return '';
  return `; stopping the ${running} running rank${running === 1 ? '' : 's'}`;
}
