import type { WaitReport } from '../runtime/declared-waits.js';

/** How long the launcher waits for the ranks' answers before it stops them anyway. */
export const WAIT_REPORT_MS = 1000;

/** A rank's answer: its declared waits, `malformed`, or none within `WAIT_REPORT_MS`. */
export type RankWaits = WaitReport[] | 'malformed' | 'no-answer';

/**
 * What `dapl run` prints on --timeout, SIGINT and SIGTERM before it stops the ranks, one line per rank
 * still running (Open MPI's `--timeout --get-stack-traces` is the model), e.g.
 *   dapl run: rank 1 waits in MPI recv from rank 0 tag 9 (context 0) for 2.0 s
 */
export function describeRankWaits(rank: number, waits: RankWaits): string {
  if (waits === 'no-answer') return `dapl run: rank ${rank} did not answer within ${WAIT_REPORT_MS / 1000} s (busy computing, or not using the dapl runtime)\n`;
  if (waits === 'malformed') return `dapl run: rank ${rank} sent a malformed wait report\n`;
  if (waits.length === 0) return `dapl run: rank ${rank} declares no wait (running, or blocked in something that does not declare its waits)\n`;
  return waits.map((w) => `dapl run: rank ${rank} waits in ${w.what} for ${w.seconds.toFixed(1)} s\n`).join('');
}
