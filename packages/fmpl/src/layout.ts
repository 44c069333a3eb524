/**
 * The remote-DMA areas every process exposes through one RMR, identical in layout on every rank so
 * that a peer computes any slot's offset itself (Tatebe et al. §2.2: `fmpl_init(ma, fa, count)`):
 *
 * - matching area: for each peer and each slot, the header a receiver writes into its SENDER's
 *   area (sender-side matching): the receive buffer's size and RMR;
 * - completion-flag area: for each peer and slot, the size and matching-area index a sender writes
 *   into its RECEIVER's area just before the body's doorbell;
 * - any-source area: for each peer and index, the header a `sendAny` writes into its receiver's area
 *   (receiver-side matching, a separate domain).
 *
 * Slots are the user's `count` indexes, then the library's own (collectives), then one for
 * FMPL_ANY_TAG receives.
 */
export const HEADER_BYTES = 24;
export const FLAG_BYTES = 8;
/** Indexes the library keeps for its collectives, after the user's. */
export const INTERNAL_SLOTS = 4;
export const SLOT_BCAST = 0;
export const SLOT_REDUCE = 1;
export const SLOT_BARRIER = 2;
export const SLOT_COMM = 3;

export class AreaLayout {
  /** Slots per peer: user indexes, internal ones, and the ANY_TAG slot. */
  readonly slots: number;
  readonly anySlot: number;
  readonly matchingAt = 0;
  readonly flagsAt: number;
  readonly anyAt: number;
  readonly bytes: number;

  constructor(
    readonly ranks: number,
    /** The user's matching-area indexes. */
    readonly count: number,
  ) {
    this.slots = count + INTERNAL_SLOTS + 1;
    this.anySlot = count + INTERNAL_SLOTS;
    this.flagsAt = ranks * this.slots * HEADER_BYTES;
    this.anyAt = this.flagsAt + ranks * this.slots * FLAG_BYTES;
    this.bytes = this.anyAt + ranks * this.slots * HEADER_BYTES;
  }

  internal(index: number): number {
    return this.count + index;
  }

  /** Offset of the header a receiver `peer` writes for `slot` (in the sender's area). */
  header(peer: number, slot: number): number {
    return this.matchingAt + (peer * this.slots + slot) * HEADER_BYTES;
  }

  /** Offset of the size flag a sender `peer` writes for `slot` (in the receiver's area). */
  flag(peer: number, slot: number): number {
    return this.flagsAt + (peer * this.slots + slot) * FLAG_BYTES;
  }

  /** Offset of the any-source header a sender `peer` writes for `slot` (in the receiver's area). */
  anyHeader(peer: number, slot: number): number {
    return this.anyAt + (peer * this.slots + slot) * HEADER_BYTES;
  }
}
