/**
 * The doorbells of FMPL, each the 32-bit immediate of an RDMA write: what arrived, from which rank
 * (13 bits: up to 8,192 ranks) for which matching-area slot (16 bits).
 */
export enum Signal {
  /** A receiver wrote its receive buffer's header into the sender's matching area. */
  HEADER = 1,
  /** The sender wrote the body into the receive buffer (its size in the completion-flag area first). */
  BODY = 2,
  /** The receive buffer was too small: nothing was written. */
  TRUNCATED = 3,
  /** send_any: the sender wrote its header into the receiver's any-source area. */
  ANY_HEADER = 4,
  /** recv_any: the receiver has read the body. */
  ANY_DONE = 5,
  /** As BODY, with no flag written: the message fills the receive buffer and came on the posted index. */
  BODY_FULL = 6,
  /** recv_any: the message does not fit the receive buffer; nothing was read. */
  ANY_TRUNCATED = 7,
}

export const MAX_RANKS = 1 << 13;
export const MAX_SLOTS = 1 << 16;

export function encodeSignal(signal: Signal, rank: number, slot: number): number {
  return ((signal << 29) | (rank << 16) | slot) >>> 0;
}

export function decodeSignal(immediate: number): { signal: Signal; rank: number; slot: number } {
  return { signal: (immediate >>> 29) as Signal, rank: (immediate >>> 16) & (MAX_RANKS - 1), slot: immediate & (MAX_SLOTS - 1) };
}
