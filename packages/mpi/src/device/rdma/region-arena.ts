/**
 * Where eager buffer regions come from: slices of a few large allocations instead of one
 * allocation each.
 *
 * V8 counts every ArrayBuffer's bytes as external memory and starts a full mark-compact each time
 * that grows by a fixed amount (64 MB) since the last one. A simulated job of N ranks makes
 * regions for about N·log N connections, and each of those collections marks a heap that also
 * grows with N: the collector's work grew as N² and was most of a 1,024-rank job's CPU time. One
 * allocation for many regions costs one collection for them all.
 *
 * Chunks grow geometrically from `FIRST_CHUNK_BYTES` to `MAX_CHUNK_BYTES`, so a process with a
 * few connections reserves a few MB. Nothing is zeroed and a region nobody writes is never
 * touched, so it costs no resident memory (as with `Buffer.allocUnsafeSlow` per region). A chunk is
 * freed by the collector once no view of any of its regions is left; a region's bytes are not
 * reused before that, so no region can see another's data.
 */
const FIRST_CHUNK_BYTES = 4 * 2 ** 20;
const MAX_CHUNK_BYTES = 2 ** 30;

interface Chunk {
  readonly buffer: ArrayBuffer;
  /** Bytes handed out from the start of `buffer`. */
  used: number;
}

/** Shared by every rank in the process (the package is loaded once per process). */
let current: Chunk | undefined;
let nextChunkBytes = FIRST_CHUNK_BYTES;

/** Regions start on 64-byte boundaries (a cache line, as DMA buffers would). */
const ALIGN = 64;

/**
 * A region of `bytes` bytes, not zeroed (every byte must be written before it is read): a view of
 * a shared chunk, or of an allocation of its own when `bytes` is more than a chunk holds.
 */
export function takeRegion(bytes: number): Uint8Array {
  if (bytes > MAX_CHUNK_BYTES / 4) return allocate(bytes);
  const start = current === undefined ? 0 : Math.ceil(current.used / ALIGN) * ALIGN;
  if (current === undefined || start + bytes > current.buffer.byteLength) {
    const size = Math.max(nextChunkBytes, bytes);
    let chunk: Uint8Array;
    try {
      chunk = allocate(size);
    } catch {
      // A host that will not reserve the chunk (ulimit -v) may still give the region alone.
      return allocate(bytes);
    }
    nextChunkBytes = Math.min(MAX_CHUNK_BYTES, nextChunkBytes * 2);
    current = { buffer: chunk.buffer as ArrayBuffer, used: bytes };
    return new Uint8Array(current.buffer, 0, bytes);
  }
  current.used = start + bytes;
  return new Uint8Array(current.buffer, start, bytes);
}

function allocate(bytes: number): Uint8Array {
  const buffer = Buffer.allocUnsafeSlow(bytes);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, bytes);
}
