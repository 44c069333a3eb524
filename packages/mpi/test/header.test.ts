import { describe, expect, it } from 'vitest';
import { HEADER_BYTES, MessageKind, emptyHeader, readHeader, writeHeader } from '../src/adi/header.js';

describe('message header', () => {
  it('round-trips every field; the RMR context travels with RTS and CTS only', () => {
    const view = new DataView(new ArrayBuffer(HEADER_BYTES));
    const rts = { ...emptyHeader(), kind: MessageKind.RTS, flags: 0x0a, credits: 513, context: 7, source: 3, tag: 2 ** 31 - 1, size: 4_194_304, senderRequest: 9, receiverRequest: 11, targetOffset: 4096, rmrContext: 0xfedc_ba98_7654_3210n };
    writeHeader(view, rts);
    const got = emptyHeader();
    expect(readHeader(view, got)).toBe(true);
    expect(got).toEqual(rts);
    // The next message in the same buffer is eager: it reads no context, and leaves none of the RTS's behind.
    writeHeader(view, { ...rts, kind: MessageKind.EAGER, rmrContext: 0n });
    expect(readHeader(view, got)).toBe(true);
    expect(got.rmrContext).toBe(0n);
    expect(view.getBigUint64(32, true)).toBe(0n);
  });

  it('refuses an unknown kind', () => {
    const view = new DataView(new ArrayBuffer(HEADER_BYTES));
    view.setUint8(0, 0);
    expect(readHeader(view, emptyHeader())).toBe(false);
    view.setUint8(0, MessageKind.REVOKE + 1);
    expect(readHeader(view, emptyHeader())).toBe(false);
  });
});
