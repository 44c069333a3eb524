import { RequestCore } from '../adi/request-core.js';
import { RecvRequest, SendRequest } from '../adi/requests.js';
import { ANY_SOURCE, ANY_TAG, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue, type InStatusEntry } from './errors.js';
import { Status } from './status.js';

/** Cancels a posted receive; supplied by the communicator's engine. */
export type Canceller = (request: RecvRequest) => boolean;

/** Where a rank declares its waits (the runtime, under the simulator: deadlock reports name them). */
export interface WaitDeclarer {
  declareWait?<T>(what: string, promise: Promise<T>): Promise<T>;
  /** Drive the transport synchronously for a while before a wait on `core` awaits (adi/polled-wait.ts). */
  progressUntil?(core: RequestCore): void;
}

/** @internal What an inactive persistent request stands on: complete from the start, with the empty status. */
export const INACTIVE = new RequestCore();
INACTIVE.complete(Status.EMPTY);

/**
 * A non-blocking operation in flight (MPI_Request). Completion is driven by the transport's events,
 * not by calls: `test()` only looks. A failed operation's `wait()` rejects with its `MpiError`.
 * Persistent requests (`comm.sendInit`, `recvInit` …) are the subclass `PersistentRequest`.
 */
export class Request {
  #core: RequestCore;
  #cancel: Canceller | undefined;
  #waits: WaitDeclarer | undefined;
  /**
   * waitAny, waitSome or testAny has handed out its completion: to them it is MPI_REQUEST_NULL from
   * now on, so the loop `for (n times) waitAny(requests)` visits each request once, as in MPI.
   * An inactive persistent request is handed out too.
   */
  #handedOut = false;
  #freed = false;

  /** @internal */
  constructor(core: RequestCore, cancel?: Canceller, waits?: WaitDeclarer) {
    this.#core = core;
    this.#cancel = cancel;
    this.#waits = waits?.declareWait === undefined && waits?.progressUntil === undefined ? undefined : waits;
  }

  /** Whether `start()` applies (a persistent request). */
  get persistent(): boolean {
    return false;
  }

  /** Begin the operation again (MPI_Start); only persistent requests can (ERR_REQUEST here). */
  start(): void {
    this.requireStartable('request');
  }

  /** Start every request, each a persistent one that is inactive (MPI_Startall); checks all before starting any. */
  static startAll(requests: readonly Request[]): void {
    const list = requireRequests(requests);
    const seen = new Set<Request>();
    list.forEach((r, i) => {
      r.requireStartable(`requests[${i}]`);
      if (seen.has(r)) throw new MpiError(ErrorClass.ERR_REQUEST, `requests[${i}] appears twice: a request is started once at a time`, { argument: `requests[${i}]` });
      seen.add(r);
    });
    for (const r of list) r.start();
  }

  /**
   * Release the request (MPI_Request_free): an operation in flight still completes, but the request
   * can no longer be waited on, tested or started (ERR_REQUEST).
   */
  free(): void {
    this.requireLive('request');
    this.#freed = true;
  }

  get freed(): boolean {
    return this.#freed;
  }

  /** @internal Throws ERR_REQUEST unless this can be started now (overridden by persistent requests). */
  protected requireStartable(argument: string): void {
    this.requireLive(argument);
    throw new MpiError(ErrorClass.ERR_REQUEST, `${argument} is not persistent: only requests from sendInit, ssendInit, rsendInit, bsendInit and recvInit can be started`, { argument });
  }

  /** @internal Throws ERR_REQUEST once freed. */
  requireLive(argument: string): void {
    if (this.#freed) throw new MpiError(ErrorClass.ERR_REQUEST, `${argument} has been freed`, { argument });
  }

  /** @internal A persistent request takes on the operation `started` runs (its core, canceller and wait naming). */
  protected activate(started: Request): void {
    this.#core = started.#core;
    this.#cancel = started.#cancel;
    this.#waits = started.#waits;
    this.#handedOut = false;
  }

  /** @internal Back to inactive: waits and tests complete at once with the empty status; waitAny skips it. */
  protected deactivate(): void {
    this.#core = INACTIVE;
    this.#cancel = undefined;
    this.#handedOut = true;
  }

  /** True once complete (successfully or not). */
  get done(): boolean {
    return this.#core.done;
  }

  /** The status once complete. A persistent request is inactive afterwards (its next wait gives the empty status). */
  wait(): Promise<Status> {
    const core = this.#progressed();
    const outcome = core.wait();
    const settled = core.done ? outcome : this.#declared(outcome);
    return this.persistent ? this.#retiring(core, settled) : settled;
  }

  /**
   * @internal `wait()` for a caller that needs no status (MPI_Send): a request done by the end of
   * its polled wait resolves through one shared promise, so none is made for it.
   */
  waitDone(): Promise<void> {
    const core = this.#progressed();
    if (core.done && core.error === undefined && !this.persistent) return DONE;
    return this.wait().then(nothing);
  }

  /** The live request's core, after the transport was polled for it where that is offered (`WaitDeclarer.progressUntil`). */
  #progressed(): RequestCore {
    this.requireLive('request');
    const core = this.#core;
    if (!core.done) this.#waits?.progressUntil?.(core);
    return core;
  }

  async #retiring(core: RequestCore, settled: Promise<Status>): Promise<Status> {
    try {
      return await settled;
    } finally {
      if (this.#core === core) this.deactivate();
    }
  }

  /** `promise`, declared as a wait for this request (`what` for a wait on it and others): deadlock and timeout reports name it, and it holds the process. */
  #declared<T>(promise: Promise<T>, what?: string): Promise<T> {
    const waits = this.#waits;
    return waits?.declareWait === undefined ? promise : waits.declareWait(what ?? describe(this.#core), promise);
  }

  /** The status if complete, else undefined (MPI_Test); throws the operation's error if it failed. */
  test(): Status | undefined {
    this.requireLive('request');
    const core = this.#core;
    if (!core.done) return undefined;
    this.#handOut();
    if (core.error !== undefined) throw core.error;
    return core.status;
  }

  /** Its completion was handed out: inactive to waitAny, waitSome, testAny and testSome; a persistent request goes inactive. */
  #handOut(): void {
    if (this.persistent) this.deactivate();
    else if (this !== NULL_REQUEST) this.#handedOut = true;
  }

  /**
   * Cancel a receive that has not matched yet (MPI_Cancel): it completes with `status.cancelled`.
   * Returns false when it had already matched. A receive advertised to its sender (receiver-initiated
   * rendezvous) is taken back from the sender first: it completes a round trip later, cancelled — or
   * with the message, if that was already on its way (`status.cancelled` is false then; MPI allows
   * either). A send cannot be cancelled (ERR_REQUEST).
   */
  cancel(): boolean {
    if (!(this.#core instanceof RecvRequest) || this.#cancel === undefined) {
      throw new MpiError(ErrorClass.ERR_REQUEST, 'only receives can be cancelled (cancelling sends is deprecated in MPI-4 and not supported)', { argument: 'request' });
    }
    return this.#cancel(this.#core);
  }

  /** @internal */
  get core(): RequestCore {
    return this.#core;
  }

  /**
   * Wait for all; the statuses in order (`null` entries, MPI_REQUEST_NULL, and inactive persistent
   * requests give the empty status). Rejects with the first error (ERR_IN_STATUS wrapping it) after
   * all have completed.
   */
  static async waitAll(requests: readonly (Request | null)[]): Promise<Status[]> {
    const list = requireRequests(requests, true).map(orNull);
    Request.#pollEach(list);
    // One promise for the whole set, resolved by a countdown (not one per request and an
    // allSettled over them: a window of 64 isends would cost 64 promises and their reactions).
    let first: Request | undefined;
    let left = 0;
    for (const r of list) {
      if (r.done) continue;
      left++;
      first ??= r;
    }
    if (first !== undefined) {
      const allDone = new Promise<void>((resolve) => {
        const countDown = (): void => {
          if (--left === 0) resolve();
        };
        for (const r of list) if (!r.done) r.#core.onDone(countDown);
      });
      await first.#declared(allDone);
    }
    return Request.#handOutAll(list);
  }

  /** Poll for each request in turn (see `wait`) until one is still not done at the end of its window. */
  static #pollEach(list: readonly Request[]): void {
    for (const r of list) {
      const core = r.#core;
      if (core.done) continue;
      r.#waits?.progressUntil?.(core);
      if (!core.done) return;
    }
  }

  /** The statuses of all (see `#statuses`), every request handed out whatever the outcome. */
  static #handOutAll(list: readonly Request[], indices?: readonly number[]): Status[] {
    try {
      return Request.#statuses(list, indices);
    } finally {
      if (indices === undefined) for (const r of list) r.#handOut();
      else for (const i of indices) list[i].#handOut();
    }
  }

  /**
   * The statuses of completed requests in order (those of `indices`, else all), or MPI_ERR_IN_STATUS
   * naming the first that failed (its error the cause), with every one's status or error in
   * `inStatus`: the multiple-completion calls report failures as MPI does, and nothing they hand
   * out is lost with the rejection.
   */
  static #statuses(list: readonly Request[], indices?: readonly number[]): Status[] {
    const statuses: Status[] = [];
    let first = -1;
    let failures = 0;
    const n = indices?.length ?? list.length;
    for (let k = 0; k < n; k++) {
      const index = indices?.[k] ?? k;
      const core = list[index].#core;
      if (core.error === undefined) statuses.push(core.status!);
      else if (failures++ === 0) first = index;
    }
    if (failures === 0) return statuses;
    const inStatus = (indices ?? list.map((_, i) => i)).map((index): InStatusEntry => {
      const core = list[index].#core;
      return core.error === undefined ? { index, status: core.status } : { index, error: core.error };
    });
    const error = list[first].#core.error!;
    const others = failures === 1 ? '' : ` (and ${failures - 1} more; see inStatus)`;
    throw new MpiError(ErrorClass.ERR_IN_STATUS, `request ${first} failed${others}: ${error.message}`, { cause: error, argument: `requests[${first}]`, inStatus });
  }

  /**
   * Wait until one of the active requests completes (MPI_Waitany): its index and status. A request
   * whose completion waitAny, waitSome or testAny already returned is inactive, as is a `null`
   * entry (MPI_REQUEST_NULL) and an inactive persistent request; with none active the index is
   * `UNDEFINED` and the status empty.
   */
  static async waitAny(requests: readonly (Request | null)[]): Promise<{ index: number; status: Status }> {
    const list = requireRequests(requests, true);
    const active = list.filter(Request.#isActive);
    if (active.length === 0) return { index: UNDEFINED, status: Status.EMPTY };
    await active[0].#declared(whenAnyDone(active), `MPI waitAny over ${active.length} requests, the first: ${describe(active[0].#core)}`);
    return Request.testAny(list)!;
  }

  /**
   * Wait until at least one active request completes (MPI_Waitsome): every completed active one's
   * index and status; none active: no indices (MPI's outcount UNDEFINED). If one of them failed,
   * every one of them is still handed out (inactive from now on) and the call rejects with
   * ERR_IN_STATUS naming the first failed one, its `inStatus` listing each one's index with its
   * status or error.
   */
  static async waitSome(requests: readonly (Request | null)[]): Promise<{ indices: number[]; statuses: Status[] }> {
    const list = requireRequests(requests, true);
    const active = list.filter(Request.#isActive);
    if (active.length === 0) return { indices: [], statuses: [] };
    await active[0].#declared(whenAnyDone(active), `MPI waitSome over ${active.length} requests, the first: ${describe(active[0].#core)}`);
    return Request.testSome(list);
  }

  /** As waitSome without waiting (MPI_Testsome): the completed active requests, possibly none. */
  static testSome(requests: readonly (Request | null)[]): { indices: number[]; statuses: Status[] } {
    const list = requireRequests(requests, true);
    const indices: number[] = [];
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      if (Request.#isActive(r) && r.done) indices.push(i);
    }
    return { indices, statuses: Request.#handOutAll(list as readonly Request[], indices) };
  }

  /** All statuses if every request is complete, else undefined (MPI_Testall; nulls as in waitAll); ERR_IN_STATUS as `waitAll` when one failed. */
  static testAll(requests: readonly (Request | null)[]): Status[] | undefined {
    const list = requireRequests(requests, true).map(orNull);
    if (!list.every((r) => r.done)) return undefined;
    return Request.#handOutAll(list);
  }

  /** A completed active request's index and status, or undefined (MPI_Testany; inactive requests as in waitAny); none active: `UNDEFINED` and the empty status. */
  static testAny(requests: readonly (Request | null)[]): { index: number; status: Status } | undefined {
    const list = requireRequests(requests, true);
    if (!list.some(Request.#isActive)) return { index: UNDEFINED, status: Status.EMPTY };
    const index = list.findIndex((r) => Request.#isActive(r) && r.done);
    if (index < 0) return undefined;
    return { index, status: list[index]!.test()! };
  }

  /** Whether waitAny, waitSome, testAny and testSome still consider `r` (not null, its completion not yet handed out). */
  static #isActive(r: Request | null): r is Request {
    return r !== null && !r.#handedOut;
  }
}

/** What a `null` entry (MPI_REQUEST_NULL) stands for in waitAll and testAll. */
const NULL_REQUEST = new Request(INACTIVE);
/** What `waitDone` returns for a request that is done: settled once, shared by every such wait. */
const DONE: Promise<void> = Promise.resolve();
const nothing = (): void => undefined;
const orNull = (r: Request | null): Request => r ?? NULL_REQUEST;

/** What a deadlock report says a rank waits for. */
function describe(core: RequestCore): string {
  if (core instanceof SendRequest) return `MPI send to world rank ${core.peer} tag ${core.tag} (${core.mode}, context ${core.context})`;
  if (core instanceof RecvRequest) {
    const from = core.source === ANY_SOURCE ? 'any source' : `rank ${core.source}`;
    return `MPI recv from ${from} tag ${core.tag === ANY_TAG ? 'any' : core.tag} (context ${core.context})`;
  }
  // A nonblocking collective names itself (ScheduleRequest.what: `MPI ibcast on world`).
  if ('what' in core && typeof core.what === 'string') return core.what;
  return 'an MPI request';
}

function requireRequests(requests: unknown): readonly Request[];
function requireRequests(requests: unknown, nullAllowed: true): readonly (Request | null)[];
function requireRequests(requests: unknown, nullAllowed = false): readonly (Request | null)[] {
  if (!Array.isArray(requests)) throw new MpiError(ErrorClass.ERR_REQUEST, `requests must be an array of Request, got ${describeValue(requests)}`, { argument: 'requests' });
  requests.forEach((r, i) => {
    if (r instanceof Request) r.requireLive(`requests[${i}]`);
    else if (!(nullAllowed && r === null)) {
      throw new MpiError(ErrorClass.ERR_REQUEST, `requests[${i}] must be a Request${nullAllowed ? ' or null' : ''}, got ${describeValue(r)}`, { argument: `requests[${i}]` });
    }
  });
  return requests as readonly (Request | null)[];
}

function whenAnyDone(list: readonly Request[]): Promise<void> {
  if (list.some((r) => r.done)) return Promise.resolve();
  return new Promise((resolve) => {
    for (const r of list) r.core.onDone(resolve);
  });
}
