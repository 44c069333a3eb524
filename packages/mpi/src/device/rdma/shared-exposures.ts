import type { Lmr, Rmr } from '@dapl/core';
import { expose, type Exposure, type RegisteredRegion } from './rendezvous.js';

interface Shared {
  readonly exposure: Exposure;
  users: number;
}

/**
 * Advertised receives into the same bytes share one RMR binding: a window of receives into one
 * buffer (osu_bw's 64, a halo buffer re-posted each step) binds once, not once per receive, and the
 * binding goes when the last of them is withdrawn. No new memory is exposed by sharing: every
 * sharer exposes exactly these bytes, with the same rights, to the same kind of access.
 * Lookup is by LMR and start offset (two map probes), never a scan of the outstanding receives.
 */
export class SharedExposures {
  readonly #byLmr = new Map<Lmr, Map<number, Shared>>();

  constructor(
    private readonly takeRmr: () => Rmr,
    private readonly returnRmr: (rmr: Rmr) => void,
    private readonly access: number,
  ) {}

  /**
   * The shared exposure of `length` bytes from `start` in `lmr`, with one more user, if one is
   * bound; undefined otherwise (then `acquire` binds one). Looks up before any region is built.
   */
  share(lmr: Lmr, start: number, length: number): Exposure | undefined {
    const found = this.#byLmr.get(lmr)?.get(start);
    if (found === undefined || found.exposure.triplet.length !== length) return undefined;
    found.users++;
    return found.exposure;
  }

  /** An exposure of `length` bytes of `region` (a contiguous, in-place region). */
  acquire(region: RegisteredRegion, length: number): Exposure {
    let byStart = this.#byLmr.get(region.lmr);
    const found = byStart?.get(region.start);
    if (found !== undefined && found.exposure.triplet.length === length) {
      found.users++;
      return found.exposure;
    }
    const exposure = expose(region, length, this.takeRmr(), this.access);
    // A different length at the same start is bound on its own (not shared, not filed).
    if (found !== undefined) return exposure;
    const shared: Shared = { exposure, users: 1 };
    if (byStart === undefined) this.#byLmr.set(region.lmr, (byStart = new Map()));
    byStart.set(region.start, shared);
    return exposure;
  }

  /** One user is done with `exposure`; the last one unbinds it. */
  release(exposure: Exposure): void {
    const region = exposure.region;
    const byStart = this.#byLmr.get(region.lmr);
    const shared = byStart?.get(region.start);
    // Not filed (bound on its own beside a shared window of another length): unbind it now.
    if (shared === undefined || shared.exposure !== exposure) return this.returnRmr(exposure.rmr);
    if (--shared.users > 0) return;
    byStart!.delete(region.start);
    if (byStart!.size === 0) this.#byLmr.delete(region.lmr);
    this.returnRmr(exposure.rmr);
  }

  /** Bindings held (for tests). */
  get size(): number {
    let n = 0;
    for (const byStart of this.#byLmr.values()) n += byStart.size;
    return n;
  }
}
