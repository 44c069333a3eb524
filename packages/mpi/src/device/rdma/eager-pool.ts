import type { InterfaceAdapter, ProtectionZone, SharedReceiveQueue } from '@dapl/core';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { makeSlots, type Slot } from './slot.js';

/**
 * The rank's eager receive buffers on one shared receive queue (`mpi.eagerPool = srq`, MVAPICH2's
 * SRQ design): every peer's eager messages land in one pool instead of `credits` buffers posted per
 * connection, so a rank's receive memory depends on how much arrives at once, not on its peers. The
 * pool is made lazily, `credits` buffers at a time: the first chunk when the first endpoint is
 * made, another each time fewer than a quarter of a chunk stay posted (the SRQ's low watermark),
 * up to `mpi.srqBuffers`. Senders keep their per-peer credit window (a virtual one now: it bounds
 * what one peer may have unconsumed here), so the wire carries the same messages as per-peer pools.
 */
export class SharedEagerPool {
  #srq: SharedReceiveQueue | undefined = undefined;
  #made = 0;
  readonly #chunk: number;
  readonly #max: number;
  readonly #slotBytes: number;

  constructor(
    readonly params: MpiParameters,
    slotBytes: number,
  ) {
    this.#slotBytes = slotBytes;
    this.#max = Math.max(params.srqBuffers, params.credits);
    this.#chunk = Math.min(params.credits, this.#max);
  }

  /** The queue, once `make` created it. */
  get srq(): SharedReceiveQueue | undefined {
    return this.#srq;
  }

  /** Buffers made so far (posted or in use). */
  get buffers(): number {
    return this.#made;
  }

  /** Whether `mpi.eagerPool` selects a shared queue on `ia` (auto: where the provider offers one). */
  static wanted(params: MpiParameters, ia: InterfaceAdapter): boolean {
    return params.eagerPool === 'srq' || (params.eagerPool === 'auto' && ia.query().sharedReceiveQueues);
  }

  /** The connection service's `sharedReceiveQueue` hook: the queue every peer endpoint is made on. */
  make(ia: InterfaceAdapter, pz: ProtectionZone): SharedReceiveQueue {
    this.#srq = ia.createSrq(pz, { maxRecvs: this.#max, lowWatermark: 0 });
    return this.#srq;
  }

  /** An endpoint is being made: the first chunk exists from then on. */
  start(): void {
    if (this.#made === 0) this.grow();
  }

  /** Post one more chunk and re-arm the watermark; false when the pool is at its size already. */
  grow(): boolean {
    const srq = this.#srq;
    if (srq === undefined || srq.freed) return false;
    const count = Math.min(this.#chunk, this.#max - this.#made);
    if (count > 0) {
      for (const slot of makeSlots(srq.pz, count, this.#slotBytes)) srq.postRecv(slot.post(this.#slotBytes), slot);
      this.#made += count;
    }
    srq.setLowWatermark(Math.max(1, this.#chunk >>> 2));
    return count > 0;
  }

  /** A buffer is free again: back into the queue. */
  repost(slot: Slot): void {
    const srq = this.#srq;
    if (srq === undefined || srq.freed) return;
    slot.link = undefined;
    slot.ep = undefined;
    srq.postRecv(slot.post(this.#slotBytes), slot);
  }
}
