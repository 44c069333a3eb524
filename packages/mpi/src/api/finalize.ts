import { WallClock } from '@dapl/core';
import { ErrorClass, MpiError } from './errors.js';
import type { MpiState } from './mpi-state.js';
import type { SendRequest } from '../adi/requests.js';

/**
 * MPI_Finalize's local half: wait for this rank's sends, at most `finalizeTimeout` seconds, then fail
 * with MPI_ERR_PENDING naming each send still pending and its peer (a send nobody receives must not
 * hang a job). The wait is declared, so `dapl run`'s report on timeout names the same sends, and so
 * does the simulator's deadlock report: in virtual time such a send is a deadlock, reported as soon
 * as nothing else can happen, so no bound is set there (a pending timer would move virtual time on).
 */
export async function drainSends(state: MpiState): Promise<void> {
  const { device, job, parameters } = state;
  const pending = device.pendingSends?.() ?? [];
  const drained = device.drain();
  const runtime = job.runtime;
  let timer: NodeJS.Timeout | undefined;
  const bounded = runtime.clock instanceof WallClock;
  const expired = bounded ? new Promise<'expired'>((resolve) => (timer = setTimeout(resolve, parameters.finalizeTimeout * 1000, 'expired'))) : undefined;
  const wait = expired === undefined ? drained : Promise.race([drained, expired]);
  try {
    const what = `MPI finalize, waiting for ${describeSends(pending)}`;
    const outcome = await (runtime.declareWait === undefined || pending.length === 0 ? wait : runtime.declareWait(what, wait));
    if (outcome !== 'expired') return;
  } finally {
    clearTimeout(timer);
  }
  const left = device.pendingSends?.() ?? [];
  const sends = left.length > 0 ? describeSends(left) : `${device.counters().sendsInFlight ?? 'some'} sends still in flight`;
  throw new MpiError(ErrorClass.ERR_PENDING, `finalize gave up after ${parameters.finalizeTimeout} s (mpi.finalizeTimeout) waiting for ${sends}: no receive matched them, or the peer did not take part`, { argument: 'finalize' });
}

/** At most a few sends by name; the rest counted. */
function describeSends(sends: readonly SendRequest[]): string {
  if (sends.length === 0) return 'its sends in flight';
  const shown = sends.slice(0, 4).map((s) => `send to rank ${s.peer} tag ${s.tag} (${s.data.size} B, ${s.mode}, context ${s.context})`);
  const more = sends.length > shown.length ? ` and ${sends.length - shown.length} more` : '';
  return `${sends.length === 1 ? '1 send' : `${sends.length} sends`}: ${shown.join(', ')}${more}`;
}
