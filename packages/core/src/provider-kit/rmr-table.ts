import { getRandomValues } from 'node:crypto';
import { DatStatus } from '../dat/status.js';
import { MemAccess } from '../dat/memory.js';
import type { ProtectionZone } from '../dat/pz.js';

/** One exposed window: `[base, base + length)` of `bytes`, with rights, owned by `pz`. */
export interface RmrWindow {
  readonly pz: ProtectionZone;
  readonly bytes: Uint8Array;
  readonly base: number;
  readonly length: number;
  readonly access: number;
}

/** What a remote access resolves to: the memory and the absolute start in it. */
export interface RemoteAccessGrant {
  readonly bytes: Uint8Array;
  readonly start: number;
}

/** The RMR table's verdict on a remote access: the grant, or the violation that refuses it. */
export type RemoteAccessResult = RemoteAccessGrant | DatStatus.PROTECTION_VIOLATION | DatStatus.PRIVILEGES_VIOLATION;

/** Contexts drawn per CSPRNG call (8 KiB): one call costs about as much for 1024 values as for 64. */
const POOL_SIZE = 1024;

/**
 * The one audited table of remotely accessible memory. Contexts are 64-bit values from the
 * OS CSPRNG, so a peer cannot guess one; every remote access is checked here for context,
 * protection zone, bounds (in exact integer arithmetic, so overflowing offsets cannot wrap)
 * and rights before a single byte moves.
 */
export class RmrTable {
  private readonly windows = new Map<bigint, RmrWindow>();
  private readonly pool = new BigUint64Array(POOL_SIZE);
  private poolNext = POOL_SIZE;

  get size(): number {
    return this.windows.size;
  }

  /** Expose a window; returns its fresh, never-reused context. */
  expose(window: RmrWindow): bigint {
    let context = this.random();
    while (context === 0n || this.windows.has(context)) context = this.random();
    this.windows.set(context, window);
    return context;
  }

  /** Forget the window of `context`: accesses through it fail from now on. Unknown contexts are ignored. */
  revoke(context: bigint): void {
    this.windows.delete(context);
  }

  /**
   * Check an access of `length` bytes at `targetOffset` (an offset in the bound LMR) through
   * `context`, by an endpoint of `pz`, needing `need` (REMOTE_READ or REMOTE_WRITE).
   */
  check(context: bigint, pz: ProtectionZone, targetOffset: bigint | number, length: number, need: number): RemoteAccessResult {
    const w = this.windows.get(context);
    if (w === undefined || w.pz !== pz) return DatStatus.PROTECTION_VIOLATION;
    if (!Number.isSafeInteger(length) || length < 0) return DatStatus.PROTECTION_VIOLATION;
    // The window's bounds are offsets in an ArrayBuffer, so safe integers. An offset is compared
    // with them exactly (a bigint compares with a number by value) before it becomes a number, so
    // no offset can lose precision or wrap; the rest is exact arithmetic on safe integers.
    const base = w.base;
    // The memory as it is now: a resizable buffer may have shrunk, or a transferred one gone, since the bind.
    const end = Math.min(base + w.length, w.bytes.length);
    if (typeof targetOffset === 'number' && !Number.isSafeInteger(targetOffset)) return DatStatus.PROTECTION_VIOLATION;
    if (targetOffset < base || targetOffset > end) return DatStatus.PROTECTION_VIOLATION;
    const offset = Number(targetOffset);
    if (length > end - offset) return DatStatus.PROTECTION_VIOLATION;
    if ((w.access & need) !== need) return DatStatus.PRIVILEGES_VIOLATION;
    return { bytes: w.bytes, start: offset };
  }

  private random(): bigint {
    if (this.poolNext === POOL_SIZE) {
      getRandomValues(this.pool);
      this.poolNext = 0;
    }
    return this.pool[this.poolNext++];
  }
}

/** The access rights a remote peer may be given on an RMR (read and write). */
export const REMOTE_RIGHTS = MemAccess.REMOTE_READ | MemAccess.REMOTE_WRITE;
