import { DtoStatus, type DatStatus } from '../../dat/status.js';
import type { DtoRequest, PostedRecv } from '../endpoint-base.js';
import type { SimDataPath, SimEndpoint } from './sim-endpoint.js';

/** How a request ends, as its completion reports it. */
export interface DtoOutcome {
  readonly status: DtoStatus;
  readonly reason: DatStatus | undefined;
}

/** The outcome of a transfer that succeeded. */
export const DTO_SUCCESS: DtoOutcome = { status: DtoStatus.SUCCESS, reason: undefined };

/** What the kit's flight events need of a data path. */
export interface FlightPath {
  /** Whether `f` is still live: no later stall re-sent its request and its connection is the same. */
  isCurrent(f: SimFlight): boolean;
  /** Record how `req` ended; requests complete from the head, in post order. */
  finish(req: DtoRequest, outcome: DtoOutcome): void;
  /** Re-send the stalled request and everything posted after it. */
  resume(stalled: SimFlight): void;
}

/** One transmission of a request on a connection (a re-send after a stall is a new flight). */
export interface SimFlight<E extends SimEndpoint = SimEndpoint> {
  readonly path: FlightPath;
  readonly req: DtoRequest;
  readonly src: E;
  readonly dst: E;
  /**
   * The endpoints' connection generations when the flight left: a newer connection drops it (every
   * reset of the path comes with a new generation of its endpoint).
   */
  readonly srcGen: number;
  readonly dstGen: number;
  /** How often a stall had sent its request back when it left: a later stall makes it stale. */
  readonly issue: number;
}

/** The target's side of a flight is done: `recv` (a send's) completes with `recvStatus`. */
export interface TargetDone<F extends SimFlight = SimFlight> {
  readonly f: F;
  readonly recv: PostedRecv | undefined;
  readonly recvStatus: DtoStatus;
}

/** The initiator learns how its request ended. */
export interface InitiatorDone<F extends SimFlight = SimFlight> {
  readonly f: F;
  readonly outcome: DtoOutcome;
}

/** The bytes of an RDMA read, read at the target, on their way back. */
export interface ReadResponse<F extends SimFlight = SimFlight> {
  readonly f: F;
  readonly bytes: Uint8Array;
}

/**
 * The part of a simulated data path every provider shares (the initiator side of every request
 * posted on one endpoint): flights tagged with the connection generations,
 * completions in post order whatever order outcomes come in, and a stall — a send that found no
 * receive — after which everything posted behind it is re-sent once it goes (go-back-N), so that
 * arrival order stays post order. A provider times the stages (`issue` and the events after it)
 * and says when a stalled send goes again (`peerPostedRecv`).
 */
export abstract class SimDataPathBase<E extends SimEndpoint, F extends SimFlight<E>> implements SimDataPath, FlightPath {
  /**
   * Per request still outstanding, how often a stall sent it back: only its own flights and those
   * of the requests behind it go stale, never a flight ahead of the stalled one (which may already
   * have taken its receive and must still complete). Made by the first stall (most paths never stall).
   */
  private reissues: Map<DtoRequest, number> | undefined = undefined;
  /** A request is stalled: new requests are not issued until it goes out again. */
  private blocked = false;
  /** Outcomes of requests that finished before one posted ahead of them. Made when that first happens: most finish in post order. */
  private results: Map<DtoRequest, DtoOutcome> | undefined = undefined;

  constructor(
    protected readonly ep: E,
    /** The provider's first stage of a flight, a kernel event (a shared function: no closure per request). */
    private readonly issue: (f: F) => void,
  ) {}

  /** The endpoint's fabric, of the provider's type: the data path books its resources. */
  protected get fabric(): E['fabric'] {
    return this.ep.fabric;
  }

  abstract peerPostedRecv(atNs: number): void;

  /** A flight with the provider's own fields; `resent` is the stalled flight when this re-sends its request. */
  protected abstract newFlight(core: SimFlight<E>, resent: F | undefined): F;

  /** The provider forgets its stall state (and cancels its timers): the connection is gone. */
  protected abstract forgetStall(): void;

  /** When a request posted at `postedAt` is issued. */
  protected issueAt(postedAt: number): number {
    return postedAt;
  }

  submit(req: DtoRequest, postedAt: number): void {
    if (this.blocked) return; // resume() issues it
    const f = this.flight(req, undefined);
    if (f !== undefined) this.ep.fabric.kernel.schedule(this.issueAt(postedAt), this.issue, f);
  }

  /** The connection is gone: forget everything in flight (the kit flushes the queues). */
  reset(): void {
    this.blocked = false;
    this.forgetStall();
    this.results?.clear();
    this.reissues?.clear();
  }

  // ---- called from the events -------------------------------------------------------------

  /** Whether `f` is still live: no later stall re-sent its request and its connection is the same. */
  isCurrent(f: SimFlight): boolean {
    return f.issue === this.#reissuesOf(f.req) && f.src.gen === f.srcGen;
  }

  /** Record a request's outcome; complete requests from the head while they have one (post order). */
  finish(req: DtoRequest, outcome: DtoOutcome): void {
    if (req !== this.ep.peekRequest()) {
      (this.results ??= new Map()).set(req, outcome);
      return;
    }
    this.#finishHead(req, outcome);
    // Requests behind it that finished first complete now, in post order.
    for (let head = this.ep.peekRequest(); head !== undefined && this.results !== undefined; head = this.ep.peekRequest()) {
      const done = this.results.get(head);
      if (done === undefined) return;
      this.results.delete(head);
      this.#finishHead(head, done);
    }
  }

  #finishHead(req: DtoRequest, outcome: DtoOutcome): void {
    if (this.reissues !== undefined && this.reissues.size > 0) this.reissues.delete(req);
    this.ep.finishHead(outcome.status, outcome.reason);
  }

  /** Re-send the stalled request and everything posted after it. */
  resume(stalled: F): void {
    this.blocked = false;
    for (let i = this.#indexOf(stalled.req), r = this.ep.requestAt(i); r !== undefined; r = this.ep.requestAt(++i)) {
      const f = this.flight(r, r === stalled.req ? stalled : undefined);
      if (f === undefined) return;
      this.issue(f);
    }
  }

  /**
   * `f`, a send, found no receive at its target at `atNs`: it stalls, the provider records how it
   * goes again (`hold`), and the target tells this path of a receive posted later on its own clock
   * (`announceLaterRecv`), as if that post had come after the stall.
   */
  stalledOnRecv(f: F, atNs: number): void {
    this.stall(f.req);
    this.hold(f, atNs);
    f.dst.announceLaterRecv();
  }

  /** The provider's state for a stalled send `f` (a timer, a parked flight), from `atNs`. */
  protected abstract hold(f: F, atNs: number): void;

  /** `stalled` found no receive: its flights and those behind it become stale, and new requests wait for `resume`. */
  private stall(stalled: DtoRequest): void {
    this.blocked = true;
    const reissues = (this.reissues ??= new Map());
    for (let i = this.#indexOf(stalled), r = this.ep.requestAt(i); r !== undefined; r = this.ep.requestAt(++i)) reissues.set(r, (reissues.get(r) ?? 0) + 1);
  }

  /** Where `req` is among the endpoint's outstanding requests (their number when it is not). */
  #indexOf(req: DtoRequest): number {
    let i = 0;
    for (let r = this.ep.requestAt(i); r !== undefined && r !== req; r = this.ep.requestAt(++i));
    return i;
  }

  private flight(req: DtoRequest, resent: F | undefined): F | undefined {
    const dst = this.ep.peer as E | undefined;
    if (dst === undefined) return undefined;
    return this.newFlight({ path: this, req, src: this.ep, dst, srcGen: this.ep.gen, dstGen: dst.gen, issue: this.#reissuesOf(req) }, resent);
  }

  /** Per event on the hot path: nothing to look up while no stall has happened. */
  #reissuesOf(req: DtoRequest): number {
    return this.reissues === undefined || this.reissues.size === 0 ? 0 : (this.reissues.get(req) ?? 0);
  }
}

// ---- events every data path schedules (shared functions: one closure-free schedule per stage) --

/** Whether `f` may still act at its target: current at the initiator, and the target's connection unchanged. */
export function deliverable(f: SimFlight): boolean {
  return f.path.isCurrent(f) && f.dst.gen === f.dstGen;
}

/** The initiator completes the request (in post order). */
export function initiatorDone(x: InitiatorDone): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  x.f.path.finish(x.f.req, x.outcome);
}

/** A stalled request goes again, and everything posted behind it. */
export function resumeFlight(f: SimFlight): void {
  if (f.src.gen !== f.srcGen) return;
  f.path.resume(f);
}
