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

  delay(ns: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, ns) / 1e6).unref());
  }
}
