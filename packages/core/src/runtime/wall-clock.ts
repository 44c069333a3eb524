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
}
