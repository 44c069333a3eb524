import { MemAccess, type Endpoint, type Lmr, type LmrTriplet, type ProtectionZone } from '@dapl/core';
import { HEADER_BYTES } from '../../adi/header.js';
import type { SendRequest } from '../../adi/requests.js';
import type { PeerLink } from './peer-link.js';
import { takeRegion } from './region-arena.js';
import type { BoxSlot } from './fastbox.js';

/** Where an eager message arrives and is read from: a receive buffer, or a fastbox in peer memory. */
export type EagerBuffer = Slot | BoxSlot;

/** One pre-registered eager buffer: a header and up to `eagerLimit` bytes of data (MVAPICH2's vbuf). */
export class Slot {
  #view: DataView | undefined = undefined;
  #bytes: Uint8Array | undefined = undefined;
  /** The iov of a post; its length is set before each send (the slot is not reused until the post completes). */
  readonly iov: [{ lmr: Lmr; offset: number; length: number }];
  /** Send slots: a blocking send that completes when this post does (its bytes have left). */
  owner: SendRequest | undefined = undefined;
  /** Receive slots: the link they are posted on. */
  link: PeerLink | undefined = undefined;
  /** Receive slots: the endpoint they are posted on (for a rank's link to itself, the passive end). */
  ep: Endpoint | undefined = undefined;

  constructor(
    readonly lmr: Lmr,
    readonly offset: number,
    readonly capacity: number,
  ) {
    this.iov = [{ lmr, offset, length: capacity }];
  }

  /**
   * The slot for reading and writing headers. Made on first use, as `bytes`: most receive buffers
   * of a large job are never filled (a simulated rank of 1,024 holds 64 per connection), and two
   * views each would be most of what a buffer costs the heap.
   */
  get view(): DataView {
    return (this.#view ??= new DataView(this.lmr.bytes.buffer, this.lmr.bytes.byteOffset + this.offset, this.capacity));
  }

  /** The whole slot as bytes (header at 0, data at HEADER_BYTES): eager data is copied through it, no view made per message. */
  get bytes(): Uint8Array {
    return (this.#bytes ??= new Uint8Array(this.lmr.bytes.buffer, this.lmr.bytes.byteOffset + this.offset, this.capacity));
  }

  /** A view of the data area (after the header), `length` bytes: for data kept past its arrival. */
  payload(length: number): Uint8Array {
    const start = this.lmr.bytes.byteOffset + this.offset + HEADER_BYTES;
    return new Uint8Array(this.lmr.bytes.buffer, start, length);
  }

  /** The whole slot as one post of `length` bytes. */
  post(length: number): readonly LmrTriplet[] {
    this.iov[0].length = length;
    return this.iov;
  }
}

/**
 * `count` slots of `capacity` bytes in one registered region (one registration, not one per slot).
 * The region is not zeroed: every byte is written (by the peer's message or by our own packing)
 * before it is read, and a receive buffer the peer never fills then costs neither the zeroing nor,
 * on a large region, resident memory (a simulated rank of a ring fills 1 of its 64 per lap). The
 * region is a slice of a shared chunk (see `region-arena.ts`).
 */
export function makeSlots(pz: ProtectionZone, count: number, capacity: number): Slot[] {
  const lmr = pz.registerLmr(takeRegion(count * capacity), MemAccess.LOCAL);
  const slots: Slot[] = [];
  for (let i = 0; i < count; i++) slots.push(new Slot(lmr, i * capacity, capacity));
  return slots;
}

/**
 * The eager send buffers: `count` slots of `capacity` bytes registered as one region at once, each
 * slot object made when first needed (a rank of a large job has few sends in flight at a time), and
 * the most recently freed taken first.
 */
export class SendSlots {
  readonly #lmr: Lmr;
  readonly #free: Slot[] = [];
  #made = 0;

  constructor(
    pz: ProtectionZone,
    readonly count: number,
    readonly capacity: number,
  ) {
    this.#lmr = pz.registerLmr(takeRegion(count * capacity), MemAccess.LOCAL);
  }

  /** A free slot, or undefined when all `count` are in use. */
  take(): Slot | undefined {
    const slot = this.#free.pop();
    if (slot !== undefined || this.#made === this.count) return slot;
    return new Slot(this.#lmr, this.capacity * this.#made++, this.capacity);
  }

  give(slot: Slot): void {
    this.#free.push(slot);
  }
}
