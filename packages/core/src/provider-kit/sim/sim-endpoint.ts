import { DtoStatus, type DatStatus } from '../../dat/status.js';
import { EpState } from '../../dat/endpoint.js';
import { BoundPsp } from '../bound-psp.js';
import { EndpointBase, type DtoRequest, type PostedRecv } from '../endpoint-base.js';
import { Fifo } from '../../util/fifo.js';
import type { SimFabric } from './sim-fabric.js';
import type { SimIa } from './sim-ia.js';
import { SimConnectionRequest } from './sim-psp.js';

type LossType = 'connection-disconnected' | 'connection-broken';

/** What a simulated endpoint asks of its provider's data path (the timing of its DTOs). */
export interface SimDataPath {
  /** A request was posted; `postedAt` is the poster's clock after the post's CPU cost. */
  submit(request: DtoRequest, postedAt: number): void;
  /** The peer posted a receive at its clock `atNs` (a send waiting for one may go). */
  peerPostedRecv(atNs: number): void;
  /** The connection is gone or replaced: forget everything in flight. */
  reset(): void;
}

/**
 * An endpoint of a simulated fabric. Connection set-up is a few modelled set-up legs between the
 * two endpoints' objects; the data path (`path`, the provider's) times each DTO and reports back
 * through the methods under "the data path's view". A provider adds its data path and what a
 * post costs the posting CPU.
 */
export abstract class SimEndpoint extends EndpointBase {
  declare readonly ia: SimIa;
  /** The connected peer endpoint, while connected. */
  peer: SimEndpoint | undefined;
  /** Bumped whenever this endpoint's connection ends or changes: events of an older one are dropped. */
  gen = 0;
  private pendingConnect = false;
  /** Receives a send's flight has taken and not yet completed, oldest first (a Set keeps insertion order). */
  private readonly filling = new Set<PostedRecv>();
  /**
   * When each posted receive was posted, on its poster's clock (oldest first, beside `recvs`). That
   * clock runs ahead of the kernel's while its rank works, so a receive may be posted "later" than a
   * send that arrives after it in the run: `takeRecvBy` does not give it to that send.
   */
  private readonly recvPostedAt = new Fifo<number>(4);
  protected abstract readonly path: SimDataPath;

  get fabric(): SimFabric {
    return this.ia.fabric;
  }

  get node(): number {
    return this.ia.node;
  }

  /** CPU time the posting rank spends on `request` before the data path takes it, ns. */
  protected abstract postCostNs(request: DtoRequest): number;

  // ---- kit hooks ----------------------------------------------------------------------------

  protected startConnect(address: string, connQual: number, privateData: Uint8Array): void {
    this.pendingConnect = true;
    this.later(() => {
      if (!this.pendingConnect) return;
      const psp = this.fabric.listeners.route(address, connQual, this.fabric.ia(address) !== undefined);
      if (!(psp instanceof BoundPsp)) return this.fail(psp.type, psp.reason);
      // A request with the wrong job key is dropped before any CR event: the client times out.
      if (!this.ia.sameJobAs(psp.ia)) return;
      psp.raiseRequest(new SimConnectionRequest(psp, this, privateData));
    });
  }

  protected cancelConnect(): void {
    this.pendingConnect = false;
  }

  protected startDisconnect(_abrupt: boolean): void {
    const peer = this.detach();
    this.later(() => {
      this.connectionLost('connection-disconnected');
      peer?.remoteClosed(this, 'connection-disconnected', 'the peer disconnected');
    });
  }

  protected teardown(): void {
    this.pendingConnect = false;
    const peer = this.detach();
    if (peer !== undefined) this.later(() => peer.remoteClosed(this, 'connection-disconnected', 'the peer freed its endpoint'));
  }

  protected submit(request: DtoRequest): void {
    const clock = this.ia.clock;
    clock.charge(this.postCostNs(request));
    this.path.submit(request, clock.nowNs);
  }

  protected override onRecvPosted(): void {
    const now = this.ia.clock.nowNs;
    // An SRQ keeps its own posting times (`IaBase.recvPostTimeNs`); this is the wake-up of a waiter.
    if (this.srq === undefined) this.recvPostedAt.push(now);
    if (this.peer !== undefined && this.state === EpState.CONNECTED) this.peer.path.peerPostedRecv(now);
  }

  // ---- the data path's view -----------------------------------------------------------------

  /** The oldest outstanding request, or undefined. */
  peekRequest(): DtoRequest | undefined {
    return this.requests.peek();
  }

  /** The outstanding request at `index` in post order (0: the oldest), or undefined. */
  requestAt(index: number): DtoRequest | undefined {
    return this.requests.at(index);
  }

  /** Complete the oldest outstanding request with `status` (and `reason` if it failed). */
  finishHead(status: DtoStatus, reason: DatStatus | undefined): void {
    this.completeRequest(status, reason);
  }

  // Protected: a send takes its receive through `takeRecvBy`, which keeps the posting times in step.
  /** The oldest posted receive, its posting time taken with it. */
  protected override takeRecv(): PostedRecv | undefined {
    const recv = super.takeRecv();
    if (recv !== undefined) {
      if (this.srq === undefined) this.recvPostedAt.shift();
      this.filling.add(recv);
    }
    return recv;
  }

  /** When the receive `takeRecv` would give was posted, on its poster's clock. */
  private headPostedAt(): number | undefined {
    return this.srq === undefined ? this.recvPostedAt.peek() : this.srq.peekPostedAt();
  }

  /**
   * The oldest posted receive for a send arriving at `atNs`, if it was posted by then; else
   * undefined, and the send finds no receive: the provider calls its path's `stalledOnRecv`.
   */
  takeRecvBy(atNs: number): PostedRecv | undefined {
    const postedAt = this.headPostedAt();
    if (postedAt !== undefined && postedAt > atNs) {
      this.srq?.wait(this);
      return undefined;
    }
    return this.takeRecv();
  }

  /**
   * A send just stalled on this endpoint for want of a receive: if one is posted at a later time on
   * its poster's clock, the sender's path learns when (`peerPostedRecv`), as it would have had the
   * post come after the stall.
   */
  announceLaterRecv(): void {
    const postedAt = this.headPostedAt();
    if (postedAt !== undefined && this.peer !== undefined) this.peer.path.peerPostedRecv(postedAt);
  }

  /** A send's data has filled `recv`: raise its completion. */
  completeRecvAt(recv: PostedRecv, status: DtoStatus, length: number): void {
    this.filling.delete(recv);
    this.completeRecv(recv, status, length);
  }

  /**
   * Receives a send has taken whose data was still on its way when the connection went: their
   * completion was dropped with the connection, so they flush here, first (they are the oldest).
   */
  protected override flush(): void {
    const taken = [...this.filling];
    this.filling.clear();
    for (const recv of taken) this.completeRecv(recv, DtoStatus.FLUSHED, 0);
    super.flush();
    while (this.recvPostedAt.shift() !== undefined);
  }

  /** An RDMA write with immediate data landed here: raise the `recv-immediate` completion. */
  immediateArrived(immediate: number, length: number): void {
    this.raiseImmediate(immediate, length);
  }

  /** The transport failed the connection: both ends see it break. */
  breakConnection(reason: string, peerReason: string): void {
    const peer = this.detach();
    this.connectionLost('connection-broken', reason);
    peer?.remoteClosed(this, 'connection-broken', peerReason);
  }

  // ---- called by the CR, the peer and the IA ------------------------------------------------

  /** The client still waits for the answer to its connection request (it has not given up). */
  awaitingAnswer(): boolean {
    return this.pendingConnect && this.state === EpState.ACTIVE_CONNECTION_PENDING;
  }

  /** Wire this endpoint to `peer`: a new connection generation, a fresh data path. */
  link(peer: SimEndpoint): void {
    this.gen++;
    this.path.reset();
    this.peer = peer;
  }

  /** The connection is up, to the endpoint at `remoteAddress`: raise `connection-established`. */
  linked(remoteAddress: string, privateData: Uint8Array | undefined): void {
    this.pendingConnect = false;
    this.established(remoteAddress, privateData);
  }

  /** The server rejected the request: the connect fails as peer-rejected, with `privateData`. */
  rejected(privateData: Uint8Array): void {
    if (!this.pendingConnect) return;
    this.pendingConnect = false;
    this.connectFailed('connection-peer-rejected', 'the peer rejected the connection request', privateData);
  }

  /** The connection attempt fails as unreachable: the other side went away. */
  peerVanished(reason: string): void {
    this.connectFailed('connection-unreachable', reason);
  }

  /** The peer `from` closed or broke the connection (`type`); ignored if `from` is no longer the peer. */
  remoteClosed(from: SimEndpoint, type: LossType, reason: string): void {
    if (this.peer !== from) return; // a newer connection, or already closed
    this.detach();
    this.connectionLost(type, reason);
  }

  /** The IA is crashing: the peer sees a broken connection, this side sees nothing more. */
  crash(): void {
    this.pendingConnect = false;
    const peer = this.detach();
    if (peer !== undefined) this.later(() => peer.remoteClosed(this, 'connection-broken', 'the peer was lost'));
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Run `action` one connection set-up leg from now (this node's clock). */
  private later(action: () => void): void {
    this.fabric.kernel.schedule(this.ia.clock.nowNs + this.fabric.params.cmDelayNs, action);
  }

  private detach(): SimEndpoint | undefined {
    const peer = this.peer;
    this.peer = undefined;
    this.gen++;
    this.path.reset();
    return peer;
  }

  private fail(type: 'connection-unreachable' | 'connection-non-peer-rejected', reason: string): void {
    this.pendingConnect = false;
    this.connectFailed(type, reason);
  }
}
