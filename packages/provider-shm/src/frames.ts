import { DatStatus } from '@dapl/core';

/**
 * Frame kinds: the low `KIND_BITS` of header word 0. The bits above carry how many of the peer's
 * requests succeeded since the last report, reported before the frame itself is taken (an
 * acknowledgement that rides on a frame going the other way anyway, such as the reply of a
 * ping-pong, costs no frame of its own).
 */
export const enum Kind {
  /** First piece of a send: word 2 its total length. */
  SEND = 1,
  /** A further piece of the message the previous frame began. */
  MORE = 2,
  /** First piece of an RDMA write: total, context, offset. */
  WRITE = 3,
  /** An RDMA write with immediate data (word 3). */
  WRITE_IMMEDIATE = 4,
  /** An RDMA read request: total, context, offset; no payload. */
  READ = 5,
  /** First piece of a read's data, or its refusal (word 3). */
  READ_RESPONSE = 6,
  /** The target's outcome of earlier requests: those of word 0 succeeded, then one failed with word 3 if non-zero. */
  ACK = 7,
  /** The initiator wrote straight into the target's window: total, context, offset; no payload. */
  WRITE_DIRECT = 8,
  /** The same with immediate data (word 3). */
  WRITE_DIRECT_IMMEDIATE = 9,
  /** The initiator read straight from the target's window: total, context, offset; no payload. */
  READ_DIRECT = 10,
}

export const KIND_BITS = 8;
export const KIND_MASK = (1 << KIND_BITS) - 1;

/** Header words. */
export const W_KIND = 0;
export const W_LENGTH = 1;
export const W_TOTAL = 2;
export const W_ARG = 3;
export const W_CONTEXT_LO = 4;
export const W_CONTEXT_HI = 5;
export const W_OFFSET_LO = 6;
export const W_OFFSET_HI = 7;

/** Why the target refused a request (word 3 of an ACK or READ_RESPONSE); 0 is none. */
export const enum Refusal {
  NONE = 0,
  PROTECTION = 1,
  PRIVILEGES = 2,
  /** A send larger than the receive it found. */
  LENGTH = 3,
}

export function refusalOf(status: DatStatus): Refusal {
  return status === DatStatus.PRIVILEGES_VIOLATION ? Refusal.PRIVILEGES : Refusal.PROTECTION;
}

export function reasonOf(refusal: Refusal): DatStatus {
  if (refusal === Refusal.PRIVILEGES) return DatStatus.PRIVILEGES_VIOLATION;
  if (refusal === Refusal.LENGTH) return DatStatus.LENGTH_ERROR;
  return DatStatus.PROTECTION_VIOLATION;
}
