import { describe, expect, it } from 'vitest';
import { AM_HEADER_BYTES, emptyAmHeader, readAmHeader, writeAmHeader, type AmHeader } from '../src/device/am/am-header.js';

describe('the am device user header', () => {
  it('decodes what it encodes, signed and unsigned fields at their extremes, from any byte offset', () => {
    const h: AmHeader = { context: -5, source: 7, tag: 2147483647, size: 4294967295, senderRequest: 3_000_000_000, receiverRequest: 1, flags: 3, from: 9 };
    const backing = new Uint8Array(AM_HEADER_BYTES + 3);
    const bytes = backing.subarray(3);
    writeAmHeader(new DataView(bytes.buffer, bytes.byteOffset, AM_HEADER_BYTES), h);
    const got = emptyAmHeader();
    readAmHeader(bytes, got);
    expect(got).toEqual(h);
  });
});
