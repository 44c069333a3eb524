import { HEADER_BYTES } from '../../adi/header.js';
import type { RmrTriplet } from '@dapl/core';
import type { RecvRequest } from '../../adi/requests.js';

/** One receive in an ADVERTISE or REVOKE message: a fixed 40-byte entry after the header. */
export const NOTICE_BYTES = 40;

/** What a receiver tells its sender about one receive (an advertisement carries all of it; a revoke no buffer). */
export interface ReceiveNotice {
  context: number;
  tag: number;
  receiverRequest: number;
  /** Epoch and ordinal (per context and tag) of the message the receive will match. */
  epoch: number;
  ordinal: number;
  /** The receive's buffer, exposed for RDMA write. */
  capacity: number;
  targetOffset: number;
  rmrContext: bigint;
}

/**
 * Notices of one kind waiting for the same eager buffer: receives posted in one burst (a window of
 * irecvs) go to the sender as one message, not one each, so they cost one credit, not a window's.
 */
export class NoticeBatch {
  readonly notices: ReceiveNotice[] = [];
  constructor(
    readonly kind: 'advertise' | 'revoke',
    /** Entries that fit one eager buffer. */
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.notices.length;
  }

  get full(): boolean {
    return this.notices.length >= this.capacity;
  }

  /** Both name the receive and the message it was advertised for; an advertisement adds its exposed buffer. */
  add(request: RecvRequest, epoch = 0, ordinal = 0, exposed?: RmrTriplet): void {
    this.notices.push({
      context: request.context,
      tag: request.tag,
      receiverRequest: request.id,
      epoch,
      ordinal,
      capacity: exposed?.length ?? 0,
      targetOffset: exposed?.targetOffset ?? 0,
      rmrContext: exposed?.rmrContext ?? 0n,
    });
  }
}

/** Entries that fit the data area of an eager buffer of `eagerLimit` bytes (0: none — notices are off). */
export function noticesPerMessage(eagerLimit: number): number {
  return Math.floor(eagerLimit / NOTICE_BYTES);
}

/** Write the batch after the header; returns the bytes written. */
export function writeNotices(view: DataView, batch: NoticeBatch): number {
  let at = HEADER_BYTES;
  for (const n of batch.notices) {
    view.setInt32(at, n.context, true);
    view.setInt32(at + 4, n.tag, true);
    view.setUint32(at + 8, n.receiverRequest, true);
    view.setUint32(at + 12, n.epoch, true);
    view.setUint32(at + 16, n.ordinal, true);
    view.setUint32(at + 20, n.capacity, true);
    view.setUint32(at + 24, n.targetOffset, true);
    view.setUint32(at + 28, 0, true);
    view.setBigUint64(at + 32, n.rmrContext, true);
    at += NOTICE_BYTES;
  }
  return at - HEADER_BYTES;
}

/** Read entry `i` into `n` (one reused object per reader). */
export function readNotice(view: DataView, i: number, n: ReceiveNotice): ReceiveNotice {
  const at = HEADER_BYTES + i * NOTICE_BYTES;
  n.context = view.getInt32(at, true);
  n.tag = view.getInt32(at + 4, true);
  n.receiverRequest = view.getUint32(at + 8, true);
  n.epoch = view.getUint32(at + 12, true);
  n.ordinal = view.getUint32(at + 16, true);
  n.capacity = view.getUint32(at + 20, true);
  n.targetOffset = view.getUint32(at + 24, true);
  n.rmrContext = view.getBigUint64(at + 32, true);
  return n;
}

export function emptyNotice(): ReceiveNotice {
  return { context: 0, tag: 0, receiverRequest: 0, epoch: 0, ordinal: 0, capacity: 0, targetOffset: 0, rmrContext: 0n };
}
