import { DatError, DatStatus, type AmCounter, type SimKernel } from '@dapl/core';

interface Waiter {
  readonly target: number;
  resolve(): void;
}

/** Who waits on a counter: a rank of `kernel.run` (waits declared) or a direct driver (waits time out). */
export interface CounterOwner {
  readonly kernel: SimKernel;
  readonly rank: number | undefined;
  readonly address: string;
  /** Wall-clock bound on a wait when driven directly, ms. */
  readonly timeoutMs: number;
}

/**
 * A LAPI counter (the MPI-LAPI paper (Banikazemi et al.): org/tgt/cmpl counters): the provider increments it at modelled times;
 * `wait(n)` is LAPI_Waitcntr — it resolves once the value reaches n and subtracts n.
 */
export class LapiAmCounter implements AmCounter {
  private current = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly owner: CounterOwner,
    /** The target-counter id (createCounter(id)), for descriptions; undefined for a local counter. */
    readonly id: number | undefined,
  ) {}

  get value(): number {
    return this.current;
  }

  set(value: number): void {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `value must be an integer >= 0, got ${String(value)}`, { argument: 'value' });
    }
    this.current = value;
    this.wake();
  }

  /** The provider's increment (at the modelled time of the event that calls it). */
  increment(): void {
    this.current++;
    this.wake();
  }

  wait(target: number): Promise<void> {
    if (typeof target !== 'number' || !Number.isSafeInteger(target) || target < 1) {
      return Promise.reject(new DatError(DatStatus.INVALID_PARAMETER, `target must be an integer >= 1, got ${String(target)}`, { argument: 'target' }));
    }
    if (this.waiters.length === 0 && this.current >= target) {
      this.current -= target;
      return Promise.resolve();
    }
    const o = this.owner;
    const done = new Promise<void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const w: Waiter = {
        target,
        resolve: () => {
          if (timer !== undefined) clearTimeout(timer);
          resolve();
        },
      };
      // Driven directly nothing reports a wait that can never end: give up after `timeoutMs` of wall-clock time.
      if (o.rank === undefined) {
        timer = setTimeout(() => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `counter.wait(${target}) on ${this.describe()} of ${o.address}: not reached within ${o.timeoutMs} ms (value ${this.current})`, { argument: 'target' }));
        }, o.timeoutMs);
        timer.unref();
      }
      this.waiters.push(w);
    });
    if (o.rank !== undefined) return o.kernel.blockedOn(o.rank, `counter.wait(${target}) on ${this.describe()} of ${o.address}`, done);
    return done;
  }

  /** Serve waiters in order while the value covers the oldest one. */
  private wake(): void {
    while (this.waiters.length > 0 && this.current >= this.waiters[0].target) {
      const w = this.waiters.shift()!;
      this.current -= w.target;
      w.resolve();
    }
  }

  private describe(): string {
    return this.id === undefined ? 'a counter' : `target counter ${this.id}`;
  }
}
