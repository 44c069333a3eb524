import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/**
 * Credit-based flow control: a sender may have at most `available` units in flight; the
 * receiver grants them back as it frees buffers. Waiters are served in order.
 */
export class CreditWindow {
  private credits: number;
  private readonly waiters: { n: number; resolve: () => void }[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `capacity must be an integer >= 0, got ${String(capacity)}`, { argument: 'capacity' });
    }
    this.credits = capacity;
  }

  get available(): number {
    return this.credits;
  }

  /** Take `n` credits if there are enough (and nobody queued first); false otherwise. */
  tryTake(n = 1): boolean {
    if (this.waiters.length > 0 || this.credits < n) return false;
    this.credits -= n;
    return true;
  }

  /** Resolves once `n` credits have been taken for the caller. */
  take(n = 1): Promise<void> {
    if (!Number.isSafeInteger(n) || n < 0 || n > this.capacity) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `n must be an integer in [0, ${this.capacity}], got ${String(n)}`, { argument: 'n' });
    }
    if (this.tryTake(n)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /**
   * Return `n` credits, waking waiters in order while enough are available.
   * @throws DatError INVALID_PARAMETER when `n` is not an integer >= 0 or would exceed the capacity.
   */
  grant(n = 1): void {
    if (!Number.isSafeInteger(n) || n < 0 || this.credits + n > this.capacity) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `grant of ${String(n)} would exceed the capacity ${this.capacity} (available ${this.credits})`, { argument: 'n' });
    }
    this.credits += n;
    while (this.waiters.length > 0 && this.waiters[0].n <= this.credits) {
      const w = this.waiters.shift()!;
      this.credits -= w.n;
      w.resolve();
    }
  }
}
