import type { InterfaceAdapter, ProtectionZone, SharedReceiveQueue } from '@dapl/core';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { makeSlots, type Slot } from './slot.js';

/**
 * The rank's eager receive buffers on one shared receive queue (`mpi.eagerPool = srq`, MVAPICH2's
 * SRQ design): every peer's eager messages land in one pool instead of `credits` buffers posted per
 * connection, so a rank's receive memory depends on how much arrives at once, not on its peers. The
 * pool is registered lazily, `credits` buffers at a time: the first chunk when the first endpoint is
 * made, another each time fewer than a quarter of a chunk stay posted (the SRQ's low watermark),
 * up to `mpi.srqBuffers`. Senders keep their per-peer credit window (a virtual one now: it bounds
 * what one peer may have unconsumed here), so the wire carries the same messages as per-peer pools.
 *
 * Of the first chunk `mpi.srqInitialPosts` are posted at first (MVAPICH2's MV2_SRQ_SIZE), the
 * rest once the rank awaits half as many messages (posted receives) or half of them are taken (the
 * watermark). The queue is consumed oldest first and a buffer goes back to its tail, so every
 * posted buffer is filled once before any is filled again: a rank that never has many messages
 * unconsumed cycles through a few buffers and touches only their pages, where with the whole chunk
 * posted each of its first 64 messages filled a buffer of its own. The first chunk is registered
 * whole at once, so the registration's cost on the rank's clock is that of a chunk as before.
 */
export class SharedEagerPool {
  #srq: SharedReceiveQueue | undefined = undefined;
  /** Buffers registered so far (posted, in use, or spare). */
  #made = 0;
  /** Registered buffers of the first chunk not posted yet, posted together when the queue runs low. */
  #spare: Slot[] = [];
  readonly #chunk: number;
  readonly #initialPosts: number;
  /** The watermark while spares are left: half the first posts. */
  readonly #spareWatermark: number;
  /** `expect` posted the spares after the watermark's event was raised: that event is spent. */
  #lowEventAnswered = false;
  readonly #max: number;
  readonly #slotBytes: number;

  constructor(
    readonly params: MpiParameters,
    slotBytes: number,
  ) {
    this.#slotBytes = slotBytes;
    this.#max = Math.max(params.srqBuffers, params.credits);
    this.#chunk = Math.min(params.credits, this.#max);
    this.#initialPosts = Math.min(params.srqInitialPosts, this.#chunk);
    this.#spareWatermark = Math.max(1, this.#initialPosts >>> 1);
  }

  /** The queue, once `make` created it. */
  get srq(): SharedReceiveQueue | undefined {
    return this.#srq;
  }

  /** Buffers registered so far (posted, in use, or not posted yet). */
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

  /** An endpoint is being made: the first chunk exists from then on, `srqInitialPosts` of it posted. */
  start(): void {
    const srq = this.#srq;
    if (this.#made > 0 || srq === undefined || srq.freed) return;
    const slots = makeSlots(srq.pz, this.#chunk, this.#slotBytes);
    this.#made = this.#chunk;
    // Posted first-made first: the spare ones are later in the region, so the buffers filled stay together.
    this.#spare = slots.splice(this.#initialPosts).reverse();
    for (const slot of slots) srq.postRecv(slot.post(this.#slotBytes), slot);
    srq.setLowWatermark(this.#spare.length > 0 ? this.#spareWatermark : Math.max(1, this.#chunk >>> 2));
  }

  /**
   * The queue runs low: post the first chunk's spare buffers, or register and post one more chunk,
   * and re-arm the watermark; false when the pool is at its size already.
   */
  grow(): boolean {
    const srq = this.#srq;
    if (srq === undefined || srq.freed) return false;
    let grew = this.#spare.length > 0;
    if (grew) {
      for (let slot = this.#spare.pop(); slot !== undefined; slot = this.#spare.pop()) srq.postRecv(slot.post(this.#slotBytes), slot);
    } else {
      const count = Math.min(this.#chunk, this.#max - this.#made);
      for (const slot of count > 0 ? makeSlots(srq.pz, count, this.#slotBytes) : []) srq.postRecv(slot.post(this.#slotBytes), slot);
      this.#made += count;
      grew = count > 0;
    }
    srq.setLowWatermark(Math.max(1, this.#chunk >>> 2));
    return grew;
  }

  /**
   * A receive was posted and waits, `awaited` in all: post the spare buffers once the rank awaits
   * half as many messages as were posted at first. A posted receive is a message on its way (a
   * window of them, as bandwidth tests post), so its buffer is posted now, on the rank's clock
   * before it goes on to post its own window, not when the low watermark's event is handled
   * behind that window's completions.
   */
  expect(awaited: number): void {
    const srq = this.#srq;
    if (this.#spare.length === 0 || awaited < this.#spareWatermark || srq === undefined || srq.freed) return;
    // Below the watermark already: its event is on its way, and these spares answer it.
    this.#lowEventAnswered = srq.query().posted < this.#spareWatermark;
    this.grow();
  }

  /** The queue's low-watermark event: `grow`, unless `expect` answered this event already. */
  onLow(): boolean {
    if (!this.#lowEventAnswered) return this.grow();
    this.#lowEventAnswered = false;
    return true;
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
