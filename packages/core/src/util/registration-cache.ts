import { isDatError } from '../dat/errors.js';
import { MemAccess, type Lmr } from '../dat/memory.js';
import type { ProtectionZone } from '../dat/pz.js';

/**
 * A cached registration held for transfers in flight (`RegistrationCache.pin`): while `pins` is
 * above 0 the cache does not free it, since a DTO may still read or write it.
 */
export interface PinnedRegistration {
  readonly lmr: Lmr;
  /** Holders that have not yet called `unpin`. */
  readonly pins: number;
}

class Entry implements PinnedRegistration {
  pins = 0;
  constructor(
    readonly buffer: ArrayBufferLike,
    readonly lmr: Lmr,
  ) {}
}

/**
 * Keeps user buffers registered between transfers (MVAPICH2's dreg cache), for upper libraries
 * that move user memory by RDMA: registering costs time on real and simulated hardware alike, and
 * applications reuse their buffers. A whole ArrayBuffer is registered once and serves every view
 * on it; the least recently used entries are freed past `limit`, skipping those still in use: an
 * RMR bound to it, or a pin held by a transfer whose DTO has not completed (freeing memory under a
 * DMA is what the DAT consumer must never do: MVAPICH2's dreg entries count their users too).
 */
export class RegistrationCache {
  readonly #lmrs = new Map<ArrayBufferLike, Entry>();
  /** The most recently used entry: a repeat lookup of its buffer needs no map probe and leaves the order as it is. */
  #newest: Entry | undefined;
  #registrations = 0;

  constructor(
    private readonly pz: ProtectionZone,
    private readonly limit: number,
  ) {}

  /** Registrations made (cache misses), for counters. */
  get registrations(): number {
    return this.#registrations;
  }

  /**
   * An LMR covering `bytes` (whose offset in the LMR is `bytes.byteOffset`), for use now: to bind
   * an RMR to (which keeps it), or for a transfer the caller pins instead (`pin`).
   */
  lmrFor(bytes: Uint8Array): Lmr {
    return this.#entry(bytes).lmr;
  }

  /** As `lmrFor`, held until `unpin`: for the source or target of a DTO until it completes. */
  pin(bytes: Uint8Array): PinnedRegistration {
    const entry = this.#entry(bytes);
    entry.pins++;
    return entry;
  }

  /** A transfer on `registration` (from `pin`) has completed; once every pin is gone it may be evicted. */
  unpin(registration: PinnedRegistration): void {
    const entry = registration as Entry;
    if (entry.pins > 0) entry.pins--;
  }

  #entry(bytes: Uint8Array): Entry {
    const buffer = bytes.buffer;
    const newest = this.#newest;
    if (newest !== undefined && newest.buffer === buffer && !newest.lmr.freed) return newest;
    const cached = this.#lmrs.get(buffer);
    if (cached !== undefined && !cached.lmr.freed) {
      // Move to the back: most recently used.
      this.#lmrs.delete(buffer);
      this.#lmrs.set(buffer, cached);
      this.#newest = cached;
      return cached;
    }
    const entry = new Entry(buffer, this.pz.registerLmr(buffer, MemAccess.ALL));
    this.#registrations++;
    this.#lmrs.set(buffer, entry);
    this.#newest = entry;
    if (this.#lmrs.size > this.limit) this.#evict(entry);
    return entry;
  }

  /** A registration outside the cache (a packed copy), which the caller frees. */
  registerTemporary(bytes: Uint8Array): Lmr {
    this.#registrations++;
    return this.pz.registerLmr(bytes, MemAccess.ALL);
  }

  /** Free every cached registration, pinned or not; the cache is empty afterwards. */
  close(): void {
    for (const { lmr } of this.#lmrs.values()) freeQuietly(lmr);
    this.#lmrs.clear();
    this.#newest = undefined;
  }

  /** Free the oldest idle entries, never `newest`: its caller is about to use it. */
  #evict(newest: Entry): void {
    for (const [buffer, entry] of this.#lmrs) {
      if (this.#lmrs.size <= this.limit) return;
      if (entry === newest || entry.pins > 0) continue;
      if (freeQuietly(entry.lmr)) this.#lmrs.delete(buffer);
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
