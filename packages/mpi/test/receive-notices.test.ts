import { describe, expect, it } from 'vitest';
import { HEADER_BYTES } from '../src/adi/header.js';
import { RecvRequest } from '../src/adi/requests.js';
import { byteSpan } from '../src/adi/transfer.js';
import { NOTICE_BYTES, NoticeBatch, emptyNotice, readNotice, writeNotices } from '../src/device/rdma/receive-notices.js';

describe('NoticeBatch', () => {
  it('writes its entries in order and reads back what each receive said', () => {
    const batch = new NoticeBatch('advertise', 4);
    const receive = (context: number, tag: number, id: number) => Object.assign(new RecvRequest(context, 1, tag, byteSpan(new Uint8Array(8))), { id });
    batch.add(receive(0, 7, 11), 2, 5, { rmrContext: 0xfeedn, targetOffset: 64, length: 65536 });
    batch.add(receive(4, 2 ** 31 - 1, 12), 3, 1, { rmrContext: 2n ** 64n - 1n, targetOffset: 0, length: 1 });
    batch.add(receive(2, 9, 13));
    expect(batch.size).toBe(3);
    expect(batch.full).toBe(false);
    const view = new DataView(new ArrayBuffer(HEADER_BYTES + 4 * NOTICE_BYTES));
    expect(writeNotices(view, batch)).toBe(3 * NOTICE_BYTES);
    const read = (i: number) => ({ ...readNotice(view, i, emptyNotice()) });
    expect(read(0)).toEqual({ context: 0, tag: 7, receiverRequest: 11, epoch: 2, ordinal: 5, capacity: 65536, targetOffset: 64, rmrContext: 0xfeedn });
    expect(read(1)).toEqual({ context: 4, tag: 2 ** 31 - 1, receiverRequest: 12, epoch: 3, ordinal: 1, capacity: 1, targetOffset: 0, rmrContext: 2n ** 64n - 1n });
    // A revoke names the receive only.
    expect(read(2)).toEqual({ context: 2, tag: 9, receiverRequest: 13, epoch: 0, ordinal: 0, capacity: 0, targetOffset: 0, rmrContext: 0n });
    batch.add(receive(0, 1, 14));
    expect(batch.full).toBe(true);
  });
});
