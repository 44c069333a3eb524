import { requireInteger } from '@dapl/core/provider-kit';

/**
 * The TCWs one node keeps, keyed by (source address, target address, size, destination) — the
 * combination a TCW describes and may be reused for (Tatebe et al. §4.1). Bounded: past `capacity` the least
 * recently used TCW is the one rewritten.
 */
export class TcwCache {
  /** Map order is recency order: the first key is the least recently used. */
  private readonly entries = new Map<string, true>();

  constructor(readonly capacity: number) {
    requireInteger(capacity, 'capacity', 1, Number.MAX_SAFE_INTEGER);
  }

  get size(): number {
    return this.entries.size;
  }

  /** True when a TCW for `key` exists (it is reused); false when one had to be created for it. */
  use(key: string): boolean {
    if (this.entries.delete(key)) {
      this.entries.set(key, true);
      return true;
    }
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(key, true);
    return false;
  }
}
