import { performance } from 'node:perf_hooks';
import type { Clock } from './runtime.js';

/** Real time: `performance.now()` in seconds. CPU work is not modelled, so charges are no-ops. */
export class WallClock implements Clock {
  readonly tick = 1e-6;

  now(): number {
    return performance.now() / 1000;
  }

  charge(_ns: number): void {}

  chargeCopy(_bytes: number): void {}

  /** A ref'd timer: a rank awaiting a delay is waiting, and its process must live until it ends. */
  delay(ns: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ns) / 1e6));
  }

  after(ns: number, action: () => void): () => void {
    return wallTimeout(ns, action);
  }
}

/** A wall-clock timer of `ns` (ms resolution, at most setTimeout's limit); returns its cancel. */
export function wallTimeout(ns: number, action: () => void): () => void {
  const timer = setTimeout(action, Math.min(Math.max(0, ns) / 1e6, 2 ** 31 - 1));
  return () => clearTimeout(timer);
}

/** `clock`'s timer when it has one (virtual time under the simulator), else a wall-clock one; returns its cancel. */
export function startTimeout(clock: Clock | undefined, ms: number, action: () => void): () => void {
  const ns = ms * 1e6;
  return clock?.after !== undefined ? clock.after(ns, action) : wallTimeout(ns, action);
}
