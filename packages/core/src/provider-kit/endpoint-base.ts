import { DatError } from '../dat/errors.js';
import { DatStatus, DtoStatus } from '../dat/status.js';
import { EpState, type ConnectOptions, type Endpoint, type EndpointAttributes, type PostOptions, type RdmaWriteOptions } from '../dat/endpoint.js';
import type { ConnectionEventType, DtoCompletionEvent, DtoOp } from '../dat/events.js';
import { MemAccess, type Iov, type RmrTriplet } from '../dat/memory.js';
import type { DtoCapability } from '../dat/provider.js';
import { transitionEp, type EpInput } from './ep-state.js';
import type { EvdQueue } from './evd-queue.js';
import { Fifo } from '../util/fifo.js';
import type { IaBase } from './ia-base.js';
import { iovLength, takeIov } from './iov.js';
import type { KitPz } from './memory.js';
import { notSupported } from './not-supported.js';
import type { KitSrq } from './srq.js';
import { describe, optionalBoolean, requireBytes, requireInteger, requireObject, requireOptionKeys } from './validate.js';

/** The data-transfer operation of a posted request. */
export type RequestOp = 'send' | 'rdma-write' | 'rdma-write-immediate' | 'rdma-read';

/** A posted request (send / write / read), kept until its completion in post order. */
export interface DtoRequest {
  readonly op: RequestOp;
  readonly cookie: unknown;
  readonly iov: Iov;
  readonly length: number;
  readonly remote: RmrTriplet | undefined;
  readonly immediate: number;
  /** Per-endpoint sequence number, 1..2^32-1 wrapping; providers may put it on the wire. */
  readonly seq: number;
  /** False when posted with `suppressCompletion`: success raises no event. */
  readonly signaled: boolean;
  /** Posted with `localCompletion`: the provider may complete it once its source may be reused. */
  readonly localCompletion: boolean;
}

/** A posted receive, kept until a message fills it or it flushes. */
export interface PostedRecv {
  readonly cookie: unknown;
  readonly iov: Iov;
  readonly length: number;
}

/** An endpoint's three event queues, checked by `IaBase.createEp`. */
export interface KitEvds {
  readonly recv: EvdQueue;
  readonly request: EvdQueue;
  readonly connect: EvdQueue;
}

const EMPTY = new Uint8Array(0);

/**
 * What every provider's endpoint shares: argument and state checks, the request and receive
 * queues, completions in post order, connect timeouts, and flushing on disconnect or loss.
 * A provider fills the transport hooks (`startConnect`, `submit`, …) and reports back with
 * `established`, `completeRequest`, `takeRecv` / `completeRecv`, `connectionLost`.
 */
export abstract class EndpointBase implements Endpoint {
  private epState = EpState.UNCONNECTED;
  private peerAddress: string | undefined;
  private nextSeq = 1;
  /** Cancels the pending connect timeout. */
  private connectTimer: (() => void) | undefined;
  /**
   * Posted receives, oldest first. The queues start small and grow to what is posted: an endpoint
   * on a shared receive queue posts none, and a simulated rank of a large job has dozens of endpoints.
   */
  protected readonly recvs = new Fifo<PostedRecv>(4);
  /** Outstanding requests in post order; completions pop from the head. */
  protected readonly requests = new Fifo<DtoRequest>(4);
  /** The shared receive queue this endpoint takes its receives from, if any (set once, at creation). */
  srq: KitSrq | undefined;
  /** `srq-ep-drained` was raised for the current connection. */
  private drainReported = false;

  constructor(
    readonly ia: IaBase,
    readonly pz: KitPz,
    readonly evds: KitEvds,
    readonly attributes: EndpointAttributes,
  ) {
    pz.retain();
    evds.recv.retain();
    evds.request.retain();
    evds.connect.retain();
  }

  get state(): EpState {
    return this.epState;
  }

  get freed(): boolean {
    return this.epState === EpState.FREED;
  }

  get remoteAddress(): string | undefined {
    return this.peerAddress;
  }

  // ---- transport hooks, filled by each provider ------------------------------------------

  /** Begin an active connection; report with `established` or `connectFailed`. */
  protected abstract startConnect(address: string, connQual: number, privateData: Uint8Array): void;
  /** Abandon a pending connection attempt (timeout, disconnect, free); no event from the provider. */
  protected abstract cancelConnect(): void;
  /** Graceful or abrupt close; report with `connectionLost('connection-disconnected')`. */
  protected abstract startDisconnect(abrupt: boolean): void;
  /** Transmit a request that was just queued in `requests`. */
  protected abstract submit(request: DtoRequest): void;
  /** A receive was posted (a stalled connection may now go on). */
  protected onRecvPosted(): void {}
  /** The endpoint is being freed; release transport resources without raising events. */
  protected abstract teardown(): void;

  // ---- consumer API --------------------------------------------------------------------

  connect(address: string, connQual: number, options: ConnectOptions = {}): void {
    this.ia.checkOpen('connect');
    if (typeof address !== 'string' || address.length === 0) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must be a non-empty string (a peer IA's address), got ${describe(address)}`, { argument: 'address' });
    }
    this.ia.validateAddress(address);
    const [lo, hi] = this.ia.limits.connQualRange;
    requireInteger(connQual, 'connQual', lo, hi);
    requireObject(options, 'options');
    requireOptionKeys(options, CONNECT_KEYS, 'connect');
    const privateData = requireBytes(options.privateData ?? EMPTY, 'options.privateData', this.ia.limits.maxPrivateData);
    const timeoutMs = requireInteger(options.timeoutMs ?? this.ia.defaultConnectTimeoutMs, 'options.timeoutMs', 1, 2 ** 31 - 1);
    this.apply('connect');
    this.armConnectTimer(timeoutMs);
    this.startConnect(address, connQual, privateData);
  }

  disconnect(options: { readonly abrupt?: boolean } = {}): void {
    this.ia.checkOpen('disconnect');
    requireObject(options, 'options');
    requireOptionKeys(options, DISCONNECT_KEYS, 'disconnect');
    const abrupt = optionalBoolean(options.abrupt, 'options.abrupt');
    const state = this.epState;
    const next = transitionEp(state, 'disconnect');
    if (state === EpState.ACTIVE_CONNECTION_PENDING || state === EpState.PASSIVE_CONNECTION_PENDING) {
      this.clearConnectTimer();
      this.cancelConnect();
      this.epState = next;
      this.raiseConnection('connection-disconnected', undefined, 'disconnected before the connection was established');
      this.flush();
      return;
    }
    if (state !== EpState.CONNECTED) return; // already disconnecting or disconnected
    this.epState = next;
    this.startDisconnect(abrupt);
  }

  postSend(iov: Iov, cookie: unknown, options?: PostOptions): void {
    this.checkPostable('postSend');
    const flags = postFlags(options, POST_KEYS, 'postSend');
    const taken = takeIov(iov, 'iov', this.pz, MemAccess.LOCAL_READ, this.attributes.maxRequestIov);
    const length = iovLength(taken);
    this.checkLength(length, this.ia.limits.maxMessageSize, 'maxMessageSize');
    this.enqueue('send', cookie, taken, length, undefined, 0, flags);
  }

  postRecv(iov: Iov, cookie: unknown): void {
    this.ia.checkOpen('postRecv');
    this.checkNotFreed('postRecv');
    if (this.srq !== undefined) {
      throw new DatError(DatStatus.INVALID_STATE, 'cannot postRecv on an endpoint created on a shared receive queue; post to the SRQ', { argument: 'ep', subtype: 'DAT_INVALID_STATE_EP' });
    }
    const state = this.epState;
    if (state === EpState.DISCONNECTED || state === EpState.DISCONNECT_PENDING) {
      throw new DatError(DatStatus.INVALID_STATE, `cannot postRecv on an endpoint in state ${state}`, { argument: 'ep', subtype: 'DAT_INVALID_STATE_EP' });
    }
    const taken = takeIov(iov, 'iov', this.pz, MemAccess.LOCAL_WRITE, this.attributes.maxRecvIov);
    if (this.recvs.size >= this.attributes.maxRecvDtos) {
      throw new DatError(DatStatus.QUEUE_FULL, `${this.recvs.size} receives are posted; the endpoint's maxRecvDtos is ${this.attributes.maxRecvDtos}`, { argument: 'ep' });
    }
    this.recvs.push({ cookie, iov: taken, length: iovLength(taken) });
    this.onRecvPosted();
  }

  postRdmaWrite(iov: Iov, cookie: unknown, remote: RmrTriplet, options: RdmaWriteOptions = {}): void {
    this.checkPostable('postRdmaWrite');
    const flags = postFlags(options, RDMA_WRITE_KEYS, 'postRdmaWrite');
    const withImmediate = options.immediate !== undefined;
    this.requireCapability(withImmediate ? 'rdma-write-immediate' : 'rdma-write', 'postRdmaWrite');
    const immediate = withImmediate ? requireInteger(options.immediate, 'options.immediate', 0, 0xffffffff) : 0;
    const taken = takeIov(iov, 'iov', this.pz, MemAccess.LOCAL_READ, this.attributes.maxRequestIov);
    const length = iovLength(taken);
    this.checkLength(length, this.ia.limits.maxRdmaSize, 'maxRdmaSize');
    this.enqueue(withImmediate ? 'rdma-write-immediate' : 'rdma-write', cookie, taken, length, takeRemote(remote, length), immediate, flags);
  }

  postRdmaRead(iov: Iov, cookie: unknown, remote: RmrTriplet, options?: PostOptions): void {
    this.checkPostable('postRdmaRead');
    const flags = postFlags(options, POST_KEYS, 'postRdmaRead') & ~POST_LOCAL;
    this.requireCapability('rdma-read', 'postRdmaRead');
    const taken = takeIov(iov, 'iov', this.pz, MemAccess.LOCAL_WRITE, this.attributes.maxRequestIov);
    const length = iovLength(taken);
    this.checkLength(length, this.ia.limits.maxRdmaSize, 'maxRdmaSize');
    this.enqueue('rdma-read', cookie, taken, length, takeRemote(remote, length), 0, flags);
  }

  reset(): void {
    this.ia.checkOpen('reset');
    this.apply('reset');
    this.peerAddress = undefined;
    // The next connection is a new stream: its first request is 1 again, as its peer expects.
    this.nextSeq = 1;
  }

  free(): void {
    const state = this.epState;
    transitionEp(state, 'free'); // INVALID_HANDLE if already freed
    this.clearConnectTimer();
    if (state === EpState.CONNECTED || state === EpState.DISCONNECT_PENDING) this.ia.connectionClosed();
    this.teardown();
    this.epState = EpState.FREED;
    this.flush();
    this.pz.release();
    this.evds.recv.release();
    this.evds.request.release();
    this.evds.connect.release();
    this.srq?.detach(this);
    this.ia.forgetEndpoint(this);
  }

  /** @internal Called by `IaBase.createEp`: the endpoint takes its receives from `srq`. */
  kitAttachSrq(srq: KitSrq): void {
    this.srq = srq;
    srq.attach(this);
  }

  /** @internal Called by the SRQ: a receive was posted after this endpoint found none. */
  kitSrqRecvPosted(): void {
    if (this.epState === EpState.CONNECTED) this.onRecvPosted();
  }

  // ---- provider-facing helpers -----------------------------------------------------------

  /** @internal Called by `ConnectionRequestBase.accept`. */
  kitBeginAccept(): void {
    this.apply('accept');
    this.armConnectTimer(this.ia.defaultConnectTimeoutMs);
  }

  /** Provider: the pending connection is up; raises `connection-established`. Ignored unless pending. */
  protected established(remoteAddress: string, privateData?: Uint8Array): void {
    if (this.epState !== EpState.ACTIVE_CONNECTION_PENDING && this.epState !== EpState.PASSIVE_CONNECTION_PENDING) return;
    this.clearConnectTimer();
    this.apply('established');
    this.drainReported = false;
    this.peerAddress = remoteAddress;
    this.ia.connectionOpened();
    this.raiseConnection('connection-established', privateData, undefined);
  }

  /** Provider: the pending connection failed as `type`; raises that event and flushes. Ignored unless pending. */
  protected connectFailed(
    type: 'connection-peer-rejected' | 'connection-non-peer-rejected' | 'connection-unreachable' | 'connection-timed-out',
    reason: string,
    privateData?: Uint8Array,
  ): void {
    if (this.epState !== EpState.ACTIVE_CONNECTION_PENDING && this.epState !== EpState.PASSIVE_CONNECTION_PENDING) return;
    this.clearConnectTimer();
    this.apply('connect-failed');
    this.raiseConnection(type, privateData, reason);
    this.flush();
  }

  /** The connection ended: gracefully (`connection-disconnected`) or not (`connection-broken`). */
  protected connectionLost(type: 'connection-disconnected' | 'connection-broken', reason?: string): void {
    const state = this.epState;
    if (state === EpState.FREED || state === EpState.DISCONNECTED || state === EpState.UNCONNECTED) return;
    if (state === EpState.ACTIVE_CONNECTION_PENDING || state === EpState.PASSIVE_CONNECTION_PENDING) {
      this.connectFailed('connection-unreachable', reason ?? 'the connection was lost while being established');
      return;
    }
    this.apply(type === 'connection-broken' ? 'broken' : 'disconnected');
    this.ia.connectionClosed();
    this.raiseConnection(type, undefined, reason);
    this.flush();
  }

  /** Complete the oldest outstanding request. */
  protected completeRequest(status: DtoStatus = DtoStatus.SUCCESS, reason?: DatStatus): DtoRequest | undefined {
    const req = this.requests.shift();
    if (req === undefined) return undefined;
    if (!req.signaled && status === DtoStatus.SUCCESS) return req;
    this.evds.request.push(completion(this, req.cookie, req.op, status, status === DtoStatus.SUCCESS ? req.length : 0, undefined, reason));
    return req;
  }

  /**
   * Provider: the oldest receive this endpoint may fill, removed from its queue, for an arriving
   * message: its own, or its SRQ's (which then wakes it on the next post if none); undefined if none.
   */
  protected takeRecv(): PostedRecv | undefined {
    return this.srq === undefined ? this.recvs.shift() : this.srq.take(this);
  }

  /** The receive `takeRecv` would give, without taking it (none from an SRQ: woken by its next post, as by `takeRecv`). */
  protected peekPostedRecv(): PostedRecv | undefined {
    if (this.srq === undefined) return this.recvs.peek();
    const recv = this.srq.peek();
    if (recv === undefined) this.srq.wait(this);
    return recv;
  }

  /** Provider: raise `recv`'s completion with `status` (LOCAL_LENGTH reports LENGTH_ERROR). */
  protected completeRecv(recv: PostedRecv, status: DtoStatus, transferredLength: number): void {
    this.evds.recv.push(completion(this, recv.cookie, 'recv', status, transferredLength, undefined, status === DtoStatus.LOCAL_LENGTH ? DatStatus.LENGTH_ERROR : undefined));
  }

  /** The target side of an RDMA write with immediate data. */
  protected raiseImmediate(immediate: number, transferredLength: number): void {
    this.evds.recv.push(completion(this, undefined, 'recv-immediate', DtoStatus.SUCCESS, transferredLength, immediate, undefined));
  }

  /** Every outstanding request, then every posted receive, completes FLUSHED, in order. */
  protected flush(): void {
    for (let r = this.requests.shift(); r !== undefined; r = this.requests.shift()) {
      this.evds.request.push(completion(this, r.cookie, r.op, DtoStatus.FLUSHED, 0, undefined, undefined));
    }
    for (let r = this.recvs.shift(); r !== undefined; r = this.recvs.shift()) {
      this.evds.recv.push(completion(this, r.cookie, 'recv', DtoStatus.FLUSHED, 0, undefined, undefined));
    }
    // The SRQ's receives stay posted for its other endpoints; this one holds none of them any more.
    if (this.srq !== undefined && !this.drainReported) {
      this.drainReported = true;
      this.srq.drained(this);
    }
  }

  // ---- internals -------------------------------------------------------------------------

  private apply(input: EpInput): void {
    this.epState = transitionEp(this.epState, input);
  }

  private raiseConnection(type: ConnectionEventType, privateData: Uint8Array | undefined, reason: string | undefined): void {
    this.evds.connect.push({ type, ep: this, privateData, reason });
  }

  private armConnectTimer(timeoutMs: number): void {
    this.clearConnectTimer();
    this.connectTimer = this.ia.startTimer(timeoutMs, () => {
      this.connectTimer = undefined;
      if (this.epState !== EpState.ACTIVE_CONNECTION_PENDING && this.epState !== EpState.PASSIVE_CONNECTION_PENDING) return;
      this.cancelConnect();
      this.connectFailed('connection-timed-out', `the connection was not established within ${timeoutMs} ms`);
    });
  }

  private clearConnectTimer(): void {
    this.connectTimer?.();
    this.connectTimer = undefined;
  }

  private checkPostable(op: string): void {
    this.ia.checkOpen(op);
    if (this.epState !== EpState.CONNECTED) {
      this.checkNotFreed(op);
      throw new DatError(DatStatus.INVALID_STATE, `cannot ${op} on an endpoint in state ${this.epState}; it must be CONNECTED`, { argument: 'ep', subtype: 'DAT_INVALID_STATE_EP' });
    }
  }

  private checkNotFreed(op: string): void {
    if (this.epState === EpState.FREED) {
      throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the endpoint has been freed`, { argument: 'ep', subtype: 'DAT_INVALID_HANDLE_EP' });
    }
  }

  private requireCapability(capability: DtoCapability, op: string): void {
    if (!this.ia.hasCapability(capability)) throw notSupported(op, capability);
  }

  private checkLength(length: number, limit: number, limitName: string): void {
    if (length > limit) {
      throw new DatError(DatStatus.LENGTH_ERROR, `iov totals ${length} bytes; the IA's ${limitName} is ${limit}`, { argument: 'iov' });
    }
  }

  private enqueue(op: RequestOp, cookie: unknown, iov: Iov, length: number, remote: RmrTriplet | undefined, immediate: number, flags: number): void {
    if (this.requests.size >= this.attributes.maxRequestDtos) {
      throw new DatError(DatStatus.QUEUE_FULL, `${this.requests.size} requests are outstanding; the endpoint's maxRequestDtos is ${this.attributes.maxRequestDtos}`, { argument: 'ep' });
    }
    const request: DtoRequest = { op, cookie, iov, length, remote, immediate, seq: this.nextSeq, signaled: (flags & POST_SUPPRESS) === 0, localCompletion: (flags & POST_LOCAL) !== 0 };
    this.nextSeq = this.nextSeq === 0xffffffff ? 1 : this.nextSeq + 1;
    this.requests.push(request);
    this.submit(request);
  }
}

function completion(
  ep: Endpoint,
  cookie: unknown,
  op: DtoOp,
  status: DtoStatus,
  transferredLength: number,
  immediate: number | undefined,
  reason: DatStatus | undefined,
): DtoCompletionEvent {
  // One object shape for every completion keeps the consumer's code monomorphic.
  return { type: 'dto-completion', ep, cookie, op, status, transferredLength, immediate, reason };
}

/** A request's completion options as bits (no object per post). */
const POST_SUPPRESS = 1;
const POST_LOCAL = 2;

const CONNECT_KEYS: readonly string[] = ['privateData', 'timeoutMs'];
const DISCONNECT_KEYS: readonly string[] = ['abrupt'];
const POST_KEYS: readonly string[] = ['suppressCompletion', 'localCompletion'];
const RDMA_WRITE_KEYS: readonly string[] = [...POST_KEYS, 'immediate'];

/** The completion flags of a request posted with `options` (only `allowed` keys: see `requireOptionKeys`). */
function postFlags(options: PostOptions | undefined, allowed: readonly string[], call: string): number {
  if (options === undefined) return 0;
  requireObject(options, 'options');
  requireOptionKeys(options, allowed, call);
  return (optionalBoolean(options.suppressCompletion, 'options.suppressCompletion') ? POST_SUPPRESS : 0) | (optionalBoolean(options.localCompletion, 'options.localCompletion') ? POST_LOCAL : 0);
}

/** The remote triplet, copied as checked (the provider reads it later; the caller's object is its own again). */
function takeRemote(remote: unknown, length: number): RmrTriplet {
  if (typeof remote !== 'object' || remote === null) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `remote must be an RmrTriplet { rmrContext, targetOffset, length }, got ${describe(remote)}`, { argument: 'remote' });
  }
  const given = remote as RmrTriplet;
  const r = { rmrContext: given.rmrContext as unknown, targetOffset: given.targetOffset as unknown, length: given.length as unknown };
  if (typeof r.rmrContext !== 'bigint' || r.rmrContext < 0n || r.rmrContext > 0xffffffffffffffffn) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `remote.rmrContext must be a 64-bit unsigned bigint, got ${describe(r.rmrContext)}`, { argument: 'remote.rmrContext' });
  }
  if (typeof r.targetOffset !== 'number' || !Number.isSafeInteger(r.targetOffset) || r.targetOffset < 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `remote.targetOffset must be an integer >= 0, got ${describe(r.targetOffset)}`, { argument: 'remote.targetOffset' });
  }
  if (typeof r.length !== 'number' || !Number.isSafeInteger(r.length) || r.length < length) {
    throw new DatError(DatStatus.LENGTH_ERROR, `remote.length must be an integer >= the iov's ${length} bytes, got ${describe(r.length)}`, { argument: 'remote.length' });
  }
  return r as RmrTriplet;
}
