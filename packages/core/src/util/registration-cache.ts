import { isDatError } from '../dat/errors.js';
import { MemAccess, type Lmr } from '../dat/memory.js';
import type { ProtectionZone } from '../dat/pz.js';

/**
 * Keeps user buffers registered between transfers (MVAPICH2's dreg cache), for upper libraries
 * that move user memory by RDMA: registering costs time on real and simulated hardware alike, and
 * applications reuse their buffers. A whole
 * ArrayBuffer is registered once and serves every view on it; the least recently used entries are
 * freed past `limit` (an entry with an RMR still bound is skipped until it is idle).
 */
export class RegistrationCache {
  readonly #lmrs = new Map<ArrayBufferLike, Lmr>();
  /** The most recently used entry's buffer: a repeat lookup of it leaves the order as it is. */
  #newest: ArrayBufferLike | undefined;
  #registrations = 0;

  constructor(
    private readonly pz: ProtectionZone,
    private readonly limit: number,
  ) {}

  /** Registrations made (cache misses), for counters. */
  get registrations(): number {
    return this.#registrations;
  }

  /** An LMR covering `bytes` (whose offset in the LMR is `bytes.byteOffset`). */
  lmrFor(bytes: Uint8Array): Lmr {
    const buffer = bytes.buffer;
    const cached = this.#lmrs.get(buffer);
    if (cached !== undefined && !cached.freed) {
      if (buffer === this.#newest) return cached;
      // Move to the back: most recently used.
      this.#lmrs.delete(buffer);
      this.#lmrs.set(buffer, cached);
      this.#newest = buffer;
      return cached;
    }
    const lmr = this.pz.registerLmr(buffer, MemAccess.ALL);
    this.#registrations++;
    this.#lmrs.set(buffer, lmr);
    this.#newest = buffer;
    if (this.#lmrs.size > this.limit) this.#evict(buffer);
    return lmr;
  }

  /** A registration outside the cache (a packed copy), which the caller frees. */
  registerTemporary(bytes: Uint8Array): Lmr {
    this.#registrations++;
    return this.pz.registerLmr(bytes, MemAccess.ALL);
  }

  close(): void {
    for (const lmr of this.#lmrs.values()) freeQuietly(lmr);
    this.#lmrs.clear();
    this.#newest = undefined;
  }

  /** Free the oldest idle entries, never `newest`: its caller is about to use it. */
  #evict(newest: ArrayBufferLike): void {
    for (const [buffer, lmr] of this.#lmrs) {
      if (this.#lmrs.size <= this.limit || buffer === newest) return;
      if (freeQuietly(lmr)) this.#lmrs.delete(buffer);
    }
  }
}

/** Free an LMR unless an RMR is still bound to it (then it stays until a later eviction). */
function freeQuietly(lmr: Lmr): boolean {
  if (lmr.freed) return true;
  try {
    lmr.free();
    return true;
  } catch (error) {
    if (isDatError(error)) return false;
    throw error;
  }
}
