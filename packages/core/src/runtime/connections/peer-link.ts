import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { Endpoint } from '../../dat/endpoint.js';

/** Where this rank stands with one peer. */
export enum LinkState {
  /** No endpoint to the peer. */
  IDLE = 'IDLE',
  /** Higher rank: resolving the peer's address, then connecting to its PSP. */
  CONNECTING = 'CONNECTING',
  /** Lower rank: asked the peer to connect (a `reverse` request); waiting for its request. */
  AWAITING = 'AWAITING',
  /** Lower rank: accepted the peer's request; waiting for `connection-established`. */
  ACCEPTING = 'ACCEPTING',
  CONNECTED = 'CONNECTED',
}

/** `reset` abandons whatever was under way (the service is closing). */
export type LinkInput = 'connect' | 'await' | 'accept' | 'established' | 'failed' | 'lost' | 'reset';

const S = LinkState;
const TRANSITIONS: Readonly<Record<LinkState, Partial<Record<LinkInput, LinkState>>>> = {
  [S.IDLE]: { connect: S.CONNECTING, await: S.AWAITING, accept: S.ACCEPTING, reset: S.IDLE },
  [S.CONNECTING]: { established: S.CONNECTED, failed: S.IDLE, reset: S.IDLE },
  [S.AWAITING]: { accept: S.ACCEPTING, failed: S.IDLE, reset: S.IDLE },
  // A newer request from the same peer replaces one still being accepted.
  [S.ACCEPTING]: { accept: S.ACCEPTING, established: S.CONNECTED, failed: S.IDLE, reset: S.IDLE },
  [S.CONNECTED]: { lost: S.IDLE, reset: S.IDLE },
};

/** The one transition function; anything else is a bug in the service (INTERNAL_ERROR). */
export function transitionLink(state: LinkState, input: LinkInput): LinkState {
  const next = TRANSITIONS[state][input];
  if (next === undefined) throw new DatError(DatStatus.INTERNAL_ERROR, `connection link: no transition for ${input} in state ${state}`);
  return next;
}

/** Callers of `endpoint(peer)` share one of these until the attempt settles. */
export interface LinkWaiter {
  readonly promise: Promise<Endpoint>;
  readonly resolve: (ep: Endpoint) => void;
  readonly reject: (error: DatError) => void;
  /** Cancels the wait's timeout. */
  readonly cancelTimer: () => void;
}

/** Starts a timeout of `ms` (on the rank's clock); returns its cancel. */
export type StartTimeout = (ms: number, action: () => void) => () => void;

/** One peer's link: state, the peer endpoint (pending or connected) and the waiting callers. */
export class PeerLink {
  state = LinkState.IDLE;
  /** The endpoint being connected or accepted, or the connected one. */
  endpoint: Endpoint | undefined;
  waiter: LinkWaiter | undefined;

  constructor(readonly peer: number) {}

  apply(input: LinkInput): void {
    this.state = transitionLink(this.state, input);
  }

  /** Start (or join) the wait of `endpoint(peer)` callers; `onTimeout` runs if nothing settles it in `timeoutMs`. */
  wait(timeoutMs: number, onTimeout: () => void, startTimeout: StartTimeout): Promise<Endpoint> {
    if (this.waiter !== undefined) return this.waiter.promise;
    let resolve!: (ep: Endpoint) => void;
    let reject!: (error: DatError) => void;
    const promise = new Promise<Endpoint>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.waiter = { promise, resolve, reject, cancelTimer: startTimeout(timeoutMs, onTimeout) };
    return promise;
  }

  settle(outcome: Endpoint | DatError): void {
    const waiter = this.waiter;
    if (waiter === undefined) return;
    this.waiter = undefined;
    waiter.cancelTimer();
    if (outcome instanceof DatError) waiter.reject(outcome);
    else waiter.resolve(outcome);
  }
}
