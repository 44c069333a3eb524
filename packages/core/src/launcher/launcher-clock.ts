import { performance } from 'node:perf_hooks';

/** A pending one-shot timer of a `LauncherClock`. */
export interface LauncherTimer {
  /** Stop the timer; its callback will not run. */
  cancel(): void;
}

/** Time for the launcher: elapsed milliseconds and one-shot timers (tests pass a manual clock). */
export interface LauncherClock {
  /** Milliseconds since an arbitrary origin. */
  now(): number;
  /** Run `callback` once, `ms` milliseconds from now. */
  after(ms: number, callback: () => void): LauncherTimer;
}

export const realLauncherClock: LauncherClock = {
  now: () => performance.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};
