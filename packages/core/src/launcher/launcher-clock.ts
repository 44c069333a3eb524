import { performance } from 'node:perf_hooks';

export interface LauncherTimer {
  cancel(): void;
}

/** Time for the launcher: elapsed milliseconds and one-shot timers (tests pass a manual clock). */
export interface LauncherClock {
  /** Milliseconds since an arbitrary origin. */
  now(): number;
  after(ms: number, callback: () => void): LauncherTimer;
}

export const realLauncherClock: LauncherClock = {
  now: () => performance.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};
