import type { MpiError } from '../api/errors.js';

/**
 * An origin's operations per target that are not yet complete here (the LAPI one-sided patent's local counters):
 * RDMA transfers until their completion, sends until their buffers are free, replies until they
 * arrived. Synchronisation waits until a target's count is zero; the first failure per target is
 * kept and reported by the next synchronisation that covers it. Operations that land at the target
 * ahead of any message sent after them (RDMA writes on the connection the window's messages use)
 * are counted as `ordered`: a synchronisation message may go before they complete here.
 */
export class Outstanding {
  readonly #pending: Int32Array;
  /** Per target: operations a synchronisation message must not overtake (not `ordered`). */
  readonly #unordered: Int32Array;
  #total = 0;
  readonly #idle: (() => void)[][];
  readonly #unorderedIdle: (() => void)[][];
  #allIdle: (() => void)[] = [];
  readonly #errors: (MpiError | undefined)[];

  constructor(size: number) {
    this.#pending = new Int32Array(size);
    this.#unordered = new Int32Array(size);
    this.#idle = Array.from({ length: size }, () => []);
    this.#unorderedIdle = Array.from({ length: size }, () => []);
    this.#errors = new Array<MpiError | undefined>(size).fill(undefined);
  }

  /** One more operation to `target`; `ordered` when it lands there before any message sent after it. */
  add(target: number, ordered = false): void {
    this.#pending[target]++;
    if (!ordered) this.#unordered[target]++;
    this.#total++;
  }

  /** One operation to `target` (added with the same `ordered`) is complete here (failed when `error`). */
  done(target: number, error?: MpiError, ordered = false): void {
    if (error !== undefined) this.#errors[target] ??= error;
    this.#total--;
    if (!ordered && --this.#unordered[target] === 0 && this.#unorderedIdle[target].length > 0) {
      const waiting = this.#unorderedIdle[target];
      this.#unorderedIdle[target] = [];
      for (const resolve of waiting) resolve();
    }
    if (--this.#pending[target] === 0 && this.#idle[target].length > 0) {
      const waiting = this.#idle[target];
      this.#idle[target] = [];
      for (const resolve of waiting) resolve();
    }
    if (this.#total === 0 && this.#allIdle.length > 0) {
      const waiting = this.#allIdle;
      this.#allIdle = [];
      for (const resolve of waiting) resolve();
    }
  }

  /** Settles once nothing to `target` (undefined: to any target) is outstanding. */
  idle(target?: number): Promise<void> {
    if (target === undefined) return this.#total === 0 ? Promise.resolve() : new Promise((resolve) => this.#allIdle.push(resolve));
    return this.#pending[target] === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle[target].push(resolve));
  }

  /**
   * Settles once a message to `target` sent now arrives after every operation issued to it: only
   * operations not `ordered` must complete first.
   */
  overtakable(target: number): Promise<void> {
    return this.#unordered[target] === 0 ? Promise.resolve() : new Promise((resolve) => this.#unorderedIdle[target].push(resolve));
  }

  /** Record a failure found outside a transfer (a target's refusal). */
  fail(target: number, error: MpiError): void {
    this.#errors[target] ??= error;
  }

  /** The first failure with `target` since the last call, cleared (undefined: with any target). */
  takeError(target?: number): MpiError | undefined {
    if (target !== undefined) {
      const error = this.#errors[target];
      this.#errors[target] = undefined;
      return error;
    }
    let first: MpiError | undefined;
    for (let t = 0; t < this.#errors.length; t++) {
      first ??= this.#errors[t];
      this.#errors[t] = undefined;
    }
    return first;
  }
}
