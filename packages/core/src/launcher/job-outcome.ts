import { constants } from 'node:os';
import { RunExitCode } from './exit-codes.js';

/** How a job ended. Every kind but `completed` ended it early; `running` counts the ranks still alive then. */
export type JobOutcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'rank-exited'; readonly rank: number; readonly code: number; readonly atMs: number; readonly running: number }
  | { readonly kind: 'rank-signaled'; readonly rank: number; readonly signal: NodeJS.Signals; readonly atMs: number; readonly running: number }
  | { readonly kind: 'rank-aborted'; readonly rank: number; readonly code: number; readonly atMs: number; readonly running: number }
  /** Closed its PMI connection without finalize, then exited 0. */
  | { readonly kind: 'rank-lost'; readonly rank: number; readonly atMs: number; readonly running: number }
  | { readonly kind: 'protocol-error'; readonly rank: number | undefined; readonly message: string; readonly atMs: number; readonly running: number }
  | { readonly kind: 'not-started'; readonly rank: number; readonly message: string; readonly atMs: number; readonly running: number }
  | { readonly kind: 'timed-out'; readonly limitMs: number; readonly atMs: number; readonly running: number }
  | { readonly kind: 'interrupted'; readonly signal: NodeJS.Signals; readonly atMs: number; readonly running: number };

export type JobFailure = Exclude<JobOutcome, { kind: 'completed' }>;

/** The launcher's exit code for `outcome` (see `RUN_EXIT_CODE_HELP`). */
export function exitCodeOf(outcome: JobOutcome): number {
  switch (outcome.kind) {
    case 'completed':
      return RunExitCode.OK;
    case 'rank-exited':
      return outcome.code;
    case 'rank-signaled':
    case 'interrupted':
      return RunExitCode.SIGNAL_BASE + signalNumber(outcome.signal);
    case 'rank-aborted':
      // Exit codes are 8 bits, and an aborted job must not look successful.
      return outcome.code & 0xff || RunExitCode.FAILURE;
    case 'rank-lost':
    case 'not-started':
      return RunExitCode.FAILURE;
    case 'protocol-error':
      return RunExitCode.PMI_PROTOCOL_ERROR;
    case 'timed-out':
      return RunExitCode.TIMEOUT;
  }
}

/** The one line `dapl run` prints when a job ends early, e.g. `dapl run: rank 2 exited with code 3 after 0.41 s; stopping the other 3 ranks`. */
export function describeFailure(failure: JobFailure): string {
  const after = `after ${(failure.atMs / 1000).toFixed(2)} s`;
  switch (failure.kind) {
    case 'rank-exited':
      return line(`rank ${failure.rank} exited with code ${failure.code} ${after}`, stoppingOthers(failure.running));
    case 'rank-signaled':
      return line(`rank ${failure.rank} was killed by ${failure.signal} ${after}`, stoppingOthers(failure.running));
    case 'rank-aborted':
      return line(`rank ${failure.rank} called abort with code ${failure.code} ${after}`, stoppingOthers(failure.running));
    case 'rank-lost':
      return line(`rank ${failure.rank} closed its PMI connection without finalize and exited with code 0 ${after}`, stoppingOthers(failure.running));
    case 'protocol-error': {
      const who = failure.rank === undefined ? 'a rank' : `rank ${failure.rank}`;
      return line(`${who} broke the PMI protocol (${oneLine(failure.message)}) ${after}`, stoppingOthers(failure.running));
    }
    case 'not-started':
      return line(`rank ${failure.rank} could not be started (${oneLine(failure.message)}) ${after}`, stoppingOthers(failure.running));
    case 'timed-out':
      return line(`the job did not finish within --timeout ${failure.limitMs / 1000} s`, stoppingRunning(failure.running, 'stopping'));
    case 'interrupted':
      return line(`received ${failure.signal} ${after}`, stoppingRunning(failure.running, `forwarding it to`));
  }
}

export function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}

function line(what: string, tail: string): string {
  return `dapl run: ${what}${tail}\n`;
}

function stoppingOthers(running: number): string {
  if (running === 0) return '';
  return running === 1 ? '; stopping the other rank' : `; stopping the other ${running} ranks`;
}

function stoppingRunning(running: number, verb: string): string {
  if (running === 0) return '';
  return `; ${verb} the ${running} running rank${running === 1 ? '' : 's'}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
