import { DatError, isDatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { ConnectionEvent } from '../../dat/events.js';
import { LinkState } from './peer-link.js';

/** The errors `endpoint(peer)` rejects with: each names both ranks, with `argument: 'peer'`. */

/** A connection event ended the attempt (timed out, unreachable, rejected, lost while pending). */
export function connectionEventError(rank: number, peer: number, event: ConnectionEvent): DatError {
  const status = event.type === 'connection-timed-out' ? DatStatus.TIMEOUT_EXPIRED : DatStatus.CONNECTION_BROKEN;
  const reason = event.reason === undefined ? '' : ` (${event.reason})`;
  return new DatError(status, `rank ${rank}: connecting with rank ${peer} failed: ${event.type}${reason}`, { argument: 'peer' });
}

/** A call on the way threw (KVS lookup, createEp, prepare, connect, accept); keeps its status. */
export function connectStepError(rank: number, peer: number, step: string, error: unknown): DatError {
  const status = isDatError(error) ? error.status : DatStatus.INTERNAL_ERROR;
  const message = error instanceof Error ? error.message : String(error);
  return new DatError(status, `rank ${rank} ${step} rank ${peer}: ${message}`, { argument: 'peer', cause: error });
}

/** Nothing settled the attempt in time. */
export function connectTimeoutError(rank: number, peer: number, limitMs: number, state: LinkState): DatError {
  return new DatError(DatStatus.TIMEOUT_EXPIRED, `rank ${rank}: no connection with rank ${peer} within ${limitMs} ms (${whyStuck(state)})`, {
    argument: 'peer',
  });
}

export function serviceClosedError(rank: number, peer?: number): DatError {
  const call = peer === undefined ? '' : `endpoint(${peer}): `;
  return new DatError(DatStatus.INVALID_STATE, `${call}the connections service of rank ${rank} is closed`, { argument: 'peer' });
}

function whyStuck(state: LinkState): string {
  switch (state) {
    case LinkState.AWAITING:
      return 'it never sent a connection request';
    case LinkState.ACCEPTING:
      return 'its connection was accepted but not established';
    case LinkState.CONNECTING:
      return 'the connect did not complete';
    default:
      return `link ${state}`;
  }
}
