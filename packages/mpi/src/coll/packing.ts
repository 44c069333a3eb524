import type { BufferSpan } from '../adi/transfer.js';
import { packRange, unpackRange } from '../datatype/index.js';
import type { CollChannel } from './channel.js';

/** The span's data as contiguous packed bytes: its own memory when contiguous, else a packed copy (`fill` copies the data in). */
export function packed(span: BufferSpan, fill: boolean): Uint8Array {
  if (span.program.contiguous) {
    const start = span.bytes.byteOffset + span.offset + span.program.minOffset;
    return new Uint8Array(span.bytes.buffer, start, span.size);
  }
  const out = new Uint8Array(span.size);
  if (fill && span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, out, 0, span.size);
  return out;
}

/** An IN_PLACE send: a copy of the receive buffer's packed data (already in the type's element order, read as bytes), charged to the clock. */
export function snapshot(span: BufferSpan, ch: CollChannel): Uint8Array {
  const copy = packed(span, true).slice();
  ch.clock.chargeCopy(copy.length);
  return copy;
}

/** Put packed bytes back into the span (nothing to do when `data` is the span's own memory). */
export function unpacked(span: BufferSpan, data: Uint8Array, ch: CollChannel): void {
  const n = Math.min(data.length, span.size);
  if (span.program.contiguous) {
    const start = span.bytes.byteOffset + span.offset + span.program.minOffset;
    if (data.buffer === span.bytes.buffer && data.byteOffset === start) return;
    new Uint8Array(span.bytes.buffer, start, n).set(data.subarray(0, n));
    ch.clock.chargeCopy(n);
    return;
  }
  if (n > 0) unpackRange(span.program, span.count, span.bytes, span.offset, 0, data, 0, n);
  ch.clock.chargeCopy(n);
}
