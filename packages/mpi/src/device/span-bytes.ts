import type { Clock } from '@dapl/core';
import type { BufferSpan } from '../adi/transfer.js';
import { packRange, unpackRange } from '../datatype/index.js';

/**
 * A span's data as one run of bytes, for a device that hands contiguous buffers to its transport:
 * the user's memory itself when the span is contiguous, else a packed copy (charged to the clock).
 */
export function packedBytes(span: BufferSpan, clock: Clock): Uint8Array {
  if (span.program.contiguous) {
    const start = span.offset + span.program.minOffset;
    return span.bytes.subarray(start, start + span.size);
  }
  const out = new Uint8Array(span.size);
  if (span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, out, 0, span.size);
  clock.chargeCopy(span.size);
  return out;
}

/**
 * Put bytes [at, at + piece.length) of a message into a receive's span, cut to its capacity (a
 * longer message is truncated, as MPI's ERR_TRUNCATE reports), the copy charged to the clock.
 */
export function unpackPiece(span: BufferSpan, piece: Uint8Array, at: number, clock: Clock): void {
  const n = Math.min(piece.length, span.size - at);
  if (n <= 0) return;
  if (span.program.contiguous) span.bytes.set(n === piece.length ? piece : piece.subarray(0, n), span.offset + span.program.minOffset + at);
  else unpackRange(span.program, span.count, span.bytes, span.offset, at, piece, 0, n);
  clock.chargeCopy(n);
}
