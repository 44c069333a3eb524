import { ErrorClass, MpiError } from '../api/errors.js';

/**
 * A committed datatype compiled for transfers (the MPI-2 one-sided patent (US 7,694,310)'s data gather/scatter program): the byte
 * blocks of ONE element in type-map order, adjacent blocks merged, repeated `count` times at a
 * stride of `extent`. Every transfer walks it; a contiguous program is one block and every path
 * short-cuts to one copy (or one iov entry).
 */
export interface GatherProgram {
  /** Bytes of data in one element (MPI_Type_size). */
  readonly size: number;
  /** Stride between elements (MPI_Type_get_extent). */
  readonly extent: number;
  readonly lb: number;
  /** `count` elements are one block of `size × count` bytes starting at `minOffset`. */
  readonly contiguous: boolean;
  /** Lowest byte touched by one element, from its origin (true lower bound). */
  readonly minOffset: number;
  /** One past the highest byte touched by one element (true upper bound). */
  readonly maxOffset: number;
  readonly blockOffsets: Float64Array;
  readonly blockLengths: Float64Array;
  /** Packed offset of each block within an element; `prefix[blocks] === size`. */
  readonly prefix: Float64Array;
}

/** Collects blocks, merging each with the previous when they touch. */
export class BlockSink {
  offsets: number[] = [];
  lengths: number[] = [];

  add(offset: number, length: number): void {
    if (length === 0) return;
    const last = this.offsets.length - 1;
    if (last >= 0 && this.offsets[last] + this.lengths[last] === offset) this.lengths[last] += length;
    else {
      this.offsets.push(offset);
      this.lengths.push(length);
    }
  }
}

export function compileProgram(sink: BlockSink, size: number, extent: number, lb: number, minOffset: number, maxOffset: number): GatherProgram {
  const n = sink.offsets.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + sink.lengths[i];
  const contiguous = size === 0 || (n === 1 && sink.lengths[0] === size && extent === size);
  return { size, extent, lb, contiguous, minOffset, maxOffset, blockOffsets: Float64Array.from(sink.offsets), blockLengths: Float64Array.from(sink.lengths), prefix };
}

/** Blocks shorter than this are copied byte by byte (cheaper than a subarray and `set`). */
const SHORT_BLOCK = 32;

/**
 * Copy bytes `[packedFrom, packedFrom + length)` of the packed stream of `count` elements whose
 * first origin is `base[baseOffset]` into `out[outOffset…]` (gather). Finds the starting block by
 * arithmetic and a binary search, never by walking earlier elements; allocates only for long blocks.
 */
export function packRange(p: GatherProgram, count: number, base: Uint8Array, baseOffset: number, packedFrom: number, out: Uint8Array, outOffset: number, length: number): void {
  transfer(p, count, base, baseOffset, packedFrom, out, outOffset, length, true);
}

/** The reverse of `packRange` (scatter): packed bytes from `src[srcOffset…]` into the elements. */
export function unpackRange(p: GatherProgram, count: number, base: Uint8Array, baseOffset: number, packedFrom: number, src: Uint8Array, srcOffset: number, length: number): void {
  transfer(p, count, base, baseOffset, packedFrom, src, srcOffset, length, false);
}

function transfer(p: GatherProgram, count: number, base: Uint8Array, baseOffset: number, packedFrom: number, packed: Uint8Array, packedOffset: number, length: number, gather: boolean): void {
  if (length <= 0) return;
  if (packedFrom < 0 || packedFrom + length > p.size * count) {
    throw new MpiError(ErrorClass.ERR_INTERN, `packed range [${packedFrom}, ${packedFrom + length}) is outside the ${p.size * count} bytes of ${count} elements`);
  }
  if (p.contiguous) {
    copyBlock(base, baseOffset + p.minOffset + packedFrom, packed, packedOffset, length, gather);
    return;
  }
  let element = Math.floor(packedFrom / p.size);
  let within = packedFrom - element * p.size;
  let block = findBlock(p.prefix, within);
  let left = length;
  let k = packedOffset;
  const blocks = p.blockOffsets.length;
  while (left > 0) {
    const skip = within - p.prefix[block];
    const n = Math.min(p.blockLengths[block] - skip, left);
    copyBlock(base, baseOffset + element * p.extent + p.blockOffsets[block] + skip, packed, k, n, gather);
    k += n;
    left -= n;
    within += n;
    if (++block === blocks) {
      block = 0;
      within = 0;
      element++;
    }
  }
}

/** `n` bytes between `base[at…]` and `packed[k…]`, in the direction `gather` says; short ones byte by byte. */
function copyBlock(base: Uint8Array, at: number, packed: Uint8Array, k: number, n: number, gather: boolean): void {
  if (n < SHORT_BLOCK) {
    if (gather) for (let i = 0; i < n; i++) packed[k + i] = base[at + i];
    else for (let i = 0; i < n; i++) base[at + i] = packed[k + i];
  } else if (gather) packed.set(base.subarray(at, at + n), k);
  else base.set(packed.subarray(k, k + n), at);
}

/** The block holding packed offset `within` of an element: the last b with prefix[b] ≤ within. */
function findBlock(prefix: Float64Array, within: number): number {
  let lo = 0;
  let hi = prefix.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (prefix[mid] <= within) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The byte segments of `count` elements from `baseOffset` (adjacent ones merged), for a transport
 * that gathers (an iov); undefined when there are more than `maxSegments`.
 */
export function segments(p: GatherProgram, count: number, baseOffset: number, maxSegments: number): { offsets: number[]; lengths: number[] } | undefined {
  const sink = new BlockSink();
  for (let e = 0; e < count; e++) {
    for (let b = 0; b < p.blockOffsets.length; b++) {
      sink.add(baseOffset + e * p.extent + p.blockOffsets[b], p.blockLengths[b]);
      if (sink.offsets.length > maxSegments) return undefined;
    }
  }
  return sink;
}

/**
 * Where `count` elements of `p` lie for a buffer `view`: the bytes they may touch and the origin's
 * offset in them. The origin is the view's first byte. Data before the origin (a negative true
 * lower bound, or a negative extent) is reached as MPI reaches it before the buffer address: in the
 * rest of the view's ArrayBuffer. Past the view's end is never reached: the view bounds what the
 * call may touch there. ERR_BUFFER, naming `argument`, when they do not fit.
 */
export function elementRegion(p: GatherProgram, count: number, view: Uint8Array, argument: string): { bytes: Uint8Array; offset: number } {
  // The bytes they touch, from the origin: [first, end); [0, 0) when none. Locals, not an object:
  // this runs for every send and receive.
  const none = count === 0 || p.size === 0;
  const spread = (count - 1) * p.extent;
  const first = none ? 0 : p.minOffset + Math.min(0, spread);
  const end = none ? 0 : p.maxOffset + Math.max(0, spread);
  if (first < -view.byteOffset || end > view.length) {
    const room = first < 0 ? ` (and ${view.byteOffset} before it in its ArrayBuffer)` : '';
    throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} holds ${view.length} bytes${room}, but ${count} elements of this type touch bytes [${first}, ${end}) from its first byte`, { argument });
  }
  if (first >= 0) return { bytes: view, offset: 0 };
  return { bytes: new Uint8Array(view.buffer, view.byteOffset + first, view.length - first), offset: -first };
}
