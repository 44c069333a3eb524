import { Datatype, type GatherProgram } from '../datatype/index.js';

/**
 * Where a message's data lives in user memory: `count` elements of a committed type whose origin is
 * at `bytes[offset]`. `size` is the packed size in bytes.
 */
export interface BufferSpan {
  readonly bytes: Uint8Array;
  readonly offset: number;
  readonly program: GatherProgram;
  readonly count: number;
  readonly size: number;
}

/** A span of plain bytes. */
export function byteSpan(bytes: Uint8Array): BufferSpan {
  return { bytes, offset: 0, program: Datatype.BYTE.program, count: bytes.length, size: bytes.length };
}
