import type { Lmr, Rmr } from '@dapl/core';
import { expose, inPlaceRegion, type Exposure } from './rendezvous.js';

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
  /** The binding found or made last (still filed): a window of receives into one buffer finds it without the two probes. */
  #last: Shared | undefined = undefined;

  constructor(
    private readonly takeRmr: () => Rmr,
    private readonly returnRmr: (rmr: Rmr) => void,
    private readonly access: number,
  ) {}

  /**
   * An exposure of `length` bytes from `start` in `lmr` (in-place memory of a contiguous receive):
   * the shared one if bound, else a new binding. The region object is built only for a new one.
   */
  acquire(lmr: Lmr, start: number, length: number): Exposure {
    const last = this.#last;
    if (last !== undefined && last.exposure.region.lmr === lmr && last.exposure.region.start === start && last.exposure.triplet.length === length) {
      last.users++;
      return last.exposure;
    }
    let byStart = this.#byLmr.get(lmr);
    const found = byStart?.get(start);
    if (found !== undefined && found.exposure.triplet.length === length) {
      found.users++;
      this.#last = found;
      return found.exposure;
    }
    const exposure = expose(inPlaceRegion(lmr, start), length, this.takeRmr(), this.access);
    // A different length at the same start is bound on its own (not shared, not filed).
    if (found !== undefined) return exposure;
    const shared: Shared = { exposure, users: 1 };
    if (byStart === undefined) this.#byLmr.set(lmr, (byStart = new Map()));
    byStart.set(start, shared);
    this.#last = shared;
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
    if (this.#last === shared) this.#last = undefined;
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
