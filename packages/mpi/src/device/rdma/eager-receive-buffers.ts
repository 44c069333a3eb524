import { DtoStatus, EpState, type DatEvent, type DtoCompletionEvent, type Endpoint, type InterfaceAdapter, type ProtectionZone, type SharedReceiveQueue } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { SharedEagerPool } from './eager-pool.js';
import { ImmediateKind } from './immediate.js';
import type { PeerLink } from './peer-link.js';
import type { RdmaCounts } from './rdma-context.js';
import { makeSlots, type Slot } from './slot.js';
import type { UnexpectedData } from './unexpected-data.js';

/** What the receive buffers need of the device. */
export interface EagerBuffersHost {
  readonly counts: RdmaCounts;
  readonly unexpected: UnexpectedData;
  /** Every link made so far, by peer rank. */
  links(): readonly PeerLink[];
  link(peer: number): PeerLink;
  linkOfEp(ep: Endpoint): PeerLink | undefined;
  failLink(link: PeerLink, error: MpiError): void;
  ring(ep: Endpoint, link: PeerLink, kind: ImmediateKind, value: number): void;
  closed(): boolean;
}

/**
 * The rdma device's eager receive buffers: `credits` posted per connection, or the rank's one
 * shared pool (`mpi.eagerPool`, see `eager-pool.ts`); their reposts with the credits they give
 * back, and the shared queue's events (running low, a connection gone).
 */
export class EagerReceiveBuffers {
  readonly #params: MpiParameters;
  readonly #slotBytes: number;
  readonly #host: EagerBuffersHost;
  /** The rank's eager receive pool on a shared receive queue, when in use. */
  #pool: SharedEagerPool | undefined;

  constructor(params: MpiParameters, slotBytes: number, host: EagerBuffersHost) {
    this.#params = params;
    this.#slotBytes = slotBytes;
    this.#host = host;
  }

  /** The shared pool, when `mpi.eagerPool` selected one. */
  get pool(): SharedEagerPool | undefined {
    return this.#pool;
  }

  /**
   * Connections' `prepare` hook: post this peer's receive buffers on a new endpoint before it
   * connects; an endpoint on the shared pool's queue posts none (the pool's first chunk is made now).
   */
  readonly prepare = (ep: Endpoint, peer: number): void => {
    const link = this.#host.link(peer);
    if (ep.srq !== undefined && ep.srq === this.#pool?.srq) return this.#pool.start();
    const slots = makeSlots(ep.pz, this.#params.credits, this.#slotBytes);
    for (const slot of slots) {
      slot.link = link;
      slot.ep = ep;
      ep.postRecv(slot.post(this.#slotBytes), slot);
    }
  };

  /** Connections' `sharedReceiveQueue` hook: the eager pool's queue, when `mpi.eagerPool` selects one. */
  readonly sharedReceiveQueue = (ia: InterfaceAdapter, pz: ProtectionZone): SharedReceiveQueue | undefined => {
    if (!SharedEagerPool.wanted(this.#params, ia)) return undefined;
    this.#pool = new SharedEagerPool(this.#params, this.#slotBytes);
    return this.#pool.make(ia, pz);
  };

  /** The shared queue's own events; false for any other event. */
  onQueueEvent(event: DatEvent): boolean {
    if (event.type === 'srq-limit-reached') this.#onPoolLow();
    else if (event.type === 'srq-ep-drained') this.#onConnectionGone(event.ep);
    else return false;
    return true;
  }

  /**
   * The link a filled receive buffer belongs to. A buffer of the shared pool is whichever peer's
   * message filled it: it is bound to that peer until reposted, or goes straight back when the
   * receive failed or came from an endpoint with no peer (undefined then).
   */
  linkOf(slot: Slot, event: DtoCompletionEvent): PeerLink | undefined {
    if (slot.link !== undefined) return slot.link;
    const link = this.#host.linkOfEp(event.ep);
    if (link === undefined || event.status !== DtoStatus.SUCCESS) this.#pool?.repost(slot);
    if (link !== undefined && event.status === DtoStatus.SUCCESS) {
      slot.link = link;
      slot.ep = event.ep;
    }
    return link;
  }

  /** Give a receive buffer back to its endpoint, and its credit back to the peer (batched). */
  readonly repost = (slot: Slot, ep: Endpoint, link: PeerLink): void => {
    if (this.#host.closed()) return;
    if (ep.srq !== undefined) this.#pool?.repost(slot);
    if (ep.state !== EpState.CONNECTED) return;
    if (ep.srq === undefined) ep.postRecv(slot.post(this.#slotBytes), slot);
    if (++link.pendingReturn >= this.#params.credits >>> 1) {
      this.#host.counts.creditImmediates++;
      this.#host.ring(ep, link, ImmediateKind.CREDIT, link.pendingReturn);
      link.pendingReturn = 0;
    }
  };

  /**
   * The shared pool runs low: one more chunk of buffers, while it may grow. At its size the rank is
   * out of eager buffers — senders wait in the transport (RNR) — so buffers held by unexpected
   * messages are copied out and go back, beyond `unexpectedLimit` (what a waiting receive does for
   * its own peer with per-peer pools): no sender can stay blocked behind another's held messages.
   */
  #onPoolLow(): void {
    const pool = this.#pool;
    if (pool === undefined || this.#host.closed() || pool.onLow()) return;
    this.#host.counts.poolExhausted++;
    const unexpected = this.#host.unexpected;
    if (unexpected.held > 0) for (const link of this.#host.links()) unexpected.unhold(link);
  }

  /**
   * An endpoint on the shared pool's queue lost its connection (its receives were the queue's, so
   * none flushed to say so): as a flushed receive does with per-peer pools, the peer is lost to us
   * unless we are closing. Endpoints the connection service made only to ask a peer to connect
   * have no peer and are ignored.
   */
  #onConnectionGone(ep: Endpoint): void {
    const link = this.#host.linkOfEp(ep);
    if (link === undefined || this.#host.closed() || link.failed !== undefined) return;
    this.#host.failLink(link, new MpiError(ErrorClass.ERR_PROC_FAILED, `the connection to rank ${link.peer} was lost (${ep.state})`));
  }
}
