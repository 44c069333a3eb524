import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { SimBlockedRank, SimRankFailure } from './sim-run.js';

/**
 * No event is left and ranks are still blocked (DESIGN §6). A `DatError` (status INTERNAL_ERROR,
 * `name` 'DatError' so that `isDatError` matches it) whose message names each blocked rank, in rank
 * order, and what it waits for; `isSimDeadlockError` tells it apart.
 */
export class SimDeadlockError extends DatError {
  readonly kind = 'sim-deadlock';

  constructor(
    /** Global virtual time of the deadlock, ns. */
    readonly nowNs: number,
    readonly blocked: readonly SimBlockedRank[],
    /** Ranks that had failed before (with `stopOnFailure: false`): often the reason for the others' wait. */
    readonly failures: readonly SimRankFailure[] = [],
  ) {
    super(DatStatus.INTERNAL_ERROR, deadlockMessage(nowNs, blocked, failures));
  }
}

/** Whether `error` is the kernel's deadlock report (also across two copies of the package). */
export function isSimDeadlockError(error: unknown): error is SimDeadlockError {
  return typeof error === 'object' && error !== null && (error as { kind?: unknown }).kind === 'sim-deadlock' && Array.isArray((error as { blocked?: unknown }).blocked);
}

function deadlockMessage(nowNs: number, blocked: readonly SimBlockedRank[], failures: readonly SimRankFailure[]): string {
  const count = blocked.length === 1 ? '1 rank is' : `${blocked.length} ranks are`;
  const lines = [`deadlock at ${nowNs} ns of virtual time: no event is pending and ${count} blocked:`];
  for (const b of blocked) lines.push(`  rank ${b.rank}: ${b.waitingFor}`);
  for (const f of failures) lines.push(`  (rank ${f.rank} had failed: ${errorText(f.error)})`);
  return lines.join('\n');
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
