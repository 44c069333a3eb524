import { requireInteger } from '../provider-kit/validate.js';
import type { Clock } from '../runtime/runtime.js';
import { requireFiniteAtLeast, requirePositive } from './time-arguments.js';

/** What a rank's clock reads the global virtual time from (the kernel). */
export interface VirtualTimeSource {
  /** Global virtual time in ns: the time of the events being processed. */
  readonly now: number;
  /** Run `action` at virtual time `atNs` (for `delay`); a source without it cannot delay. */
  schedule?(atNs: number, action: () => void): number;
  /** Drop an event `schedule` returned (for `after`'s cancel). */
  cancel?(handle: number): void;
}

/**
 * One rank's virtual clock (DESIGN §6). A rank's code only ever runs while the kernel is at the
 * time of the event that woke it, so the clock reads max(its own time, the kernel's): a rank woken
 * at t never reads less than t, without anyone having to call `advanceTo` on each wake-up. CPU work
 * an upper library charges moves the rank's own time past the kernel's.
 */
export class SimClock implements Clock {
  readonly tick = 1e-9;
  private local = 0;

  constructor(
    private readonly time: VirtualTimeSource,
    /** The host's memory-copy speed that `chargeCopy` uses, bytes per ns. */
    readonly copyBytesPerNs: number,
  ) {
    requirePositive(copyBytesPerNs, 'copyBytesPerNs');
  }

  /** This rank's virtual time, in ns. */
  get nowNs(): number {
    const global = this.time.now;
    if (this.local < global) this.local = global;
    return this.local;
  }

  /** Seconds (the MPI_Wtime contract). */
  now(): number {
    return this.nowNs / 1e9;
  }

  /** Accounts `ns` nanoseconds of CPU work to this rank. */
  charge(ns: number): void {
    requireFiniteAtLeast(ns, 'ns', 0);
    this.local = this.nowNs + ns;
  }

  /** Accounts a memory copy of `bytes` at `copyBytesPerNs`. */
  chargeCopy(bytes: number): void {
    requireInteger(bytes, 'bytes', 0, Number.MAX_SAFE_INTEGER);
    this.local = this.nowNs + bytes / this.copyBytesPerNs;
  }

  /** Resolves when virtual time reaches this rank's time + `ns` (an event of the kernel). */
  delay(ns: number): Promise<void> {
    requireFiniteAtLeast(ns, 'ns', 0);
    const at = this.nowNs + ns;
    const schedule = this.time.schedule;
    if (schedule === undefined) return Promise.reject(new Error('this clock has no kernel to delay on'));
    return new Promise((resolve) => schedule.call(this.time, at, resolve));
  }

  /**
   * Runs `action` when virtual time reaches this rank's time + `ns`, unless the returned function
   * cancels it first. A cancelled timer leaves no trace in the run (its event never counts).
   */
  after(ns: number, action: () => void): () => void {
    requireFiniteAtLeast(ns, 'ns', 0);
    const source = this.time;
    if (source.schedule === undefined || source.cancel === undefined) throw new Error('this clock has no kernel to time on');
    let live = true;
    const handle = source.schedule(this.nowNs + ns, () => {
      live = false;
      action();
    });
    live = handle !== 0;
    return () => {
      if (live) source.cancel!(handle);
      live = false;
    };
  }

  /** Moves this rank's time on to `ns` if it is behind (a completion waking the rank at the event's time). */
  advanceTo(ns: number): void {
    requireFiniteAtLeast(ns, 'ns', 0);
    if (ns > this.nowNs) this.local = ns;
  }
}
