import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { EpState } from '../dat/endpoint.js';

/** What can happen to an endpoint. Consumer calls and provider events alike go through `transitionEp`. */
export type EpInput =
  | 'connect'
  | 'accept'
  | 'established'
  | 'connect-failed'
  | 'disconnect'
  | 'disconnected'
  | 'broken'
  | 'reset'
  | 'free';

const S = EpState;
const TRANSITIONS: Readonly<Record<EpState, Partial<Record<EpInput, EpState>>>> = {
  [S.UNCONNECTED]: { connect: S.ACTIVE_CONNECTION_PENDING, accept: S.PASSIVE_CONNECTION_PENDING, free: S.FREED },
  [S.ACTIVE_CONNECTION_PENDING]: {
    established: S.CONNECTED,
    'connect-failed': S.DISCONNECTED,
    disconnect: S.DISCONNECTED,
    broken: S.DISCONNECTED,
    free: S.FREED,
  },
  [S.PASSIVE_CONNECTION_PENDING]: {
    established: S.CONNECTED,
    'connect-failed': S.DISCONNECTED,
    disconnect: S.DISCONNECTED,
    broken: S.DISCONNECTED,
    free: S.FREED,
  },
  [S.CONNECTED]: { disconnect: S.DISCONNECT_PENDING, disconnected: S.DISCONNECTED, broken: S.DISCONNECTED, free: S.FREED },
  [S.DISCONNECT_PENDING]: {
    disconnect: S.DISCONNECT_PENDING,
    disconnected: S.DISCONNECTED,
    broken: S.DISCONNECTED,
    free: S.FREED,
  },
  [S.DISCONNECTED]: { disconnect: S.DISCONNECTED, disconnected: S.DISCONNECTED, broken: S.DISCONNECTED, reset: S.UNCONNECTED, free: S.FREED },
  [S.FREED]: {},
};


/** The one transition function: the next state, or INVALID_STATE naming where `input` is allowed. */
export function transitionEp(state: EpState, input: EpInput): EpState {
  const next = TRANSITIONS[state][input];
  if (next !== undefined) return next;
  if (state === S.FREED) {
    throw new DatError(DatStatus.INVALID_HANDLE, `the endpoint has been freed (cannot ${input})`, { argument: 'ep', subtype: 'DAT_INVALID_HANDLE_EP' });
  }
  const allowed = (Object.keys(TRANSITIONS) as EpState[]).filter((s) => TRANSITIONS[s][input] !== undefined);
  throw new DatError(
    DatStatus.INVALID_STATE,
    `cannot ${input} an endpoint in state ${state}; allowed in: ${allowed.join(', ') || 'none'}`,
    { argument: 'ep', subtype: 'DAT_INVALID_STATE_EP' },
  );
}
