import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { Clock, Runtime } from '../../runtime/runtime.js';

/**
 * A rank's runtime as its in-process job sees it: the shared local runtime, plus what the launcher
 * learns from a PMI connection (whether the rank joined and finalized), and a way to end it: once
 * the job is over every pending and later call rejects, so the ranks it abandons stop waiting.
 */
export class InProcessRankRuntime implements Runtime {
  /** The rank has used its runtime: from now on it must finalize before it ends (as under PMI). */
  joined = false;
  finalized = false;
  readonly #inner: Runtime;
  readonly #pending = new Set<(error: DatError) => void>();
  #ended: DatError | undefined;

  constructor(inner: Runtime) {
    this.#inner = inner;
  }

  get rank(): number {
    return this.#inner.rank;
  }

  get size(): number {
    return this.#inner.size;
  }

  get clock(): Clock {
    return this.#inner.clock;
  }

  put(key: string, value: string): Promise<void> {
    return this.#call(() => this.#inner.put(key, value));
  }

  fence(): Promise<void> {
    return this.#call(() => this.#inner.fence());
  }

  get(key: string): Promise<string> {
    return this.#call(() => this.#inner.get(key));
  }

  barrier(): Promise<void> {
    return this.#call(() => this.#inner.barrier());
  }

  declareWait<T>(what: string, promise: Promise<T>): Promise<T> {
    return this.#inner.declareWait?.(what, promise) ?? promise;
  }

  /** As under PMI: a code outside 0–255 is refused before anything happens. */
  async abort(code: number, message: string): Promise<never> {
    if (!Number.isSafeInteger(code) || code < 0 || code > 255) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `exit code ${code} is not an integer in [0, 255]`, { argument: 'code' });
    }
    this.joined = true;
    if (this.#ended !== undefined) throw this.#ended;
    return this.#inner.abort(code, message);
  }

  finalize(): Promise<void> {
    return this.#call(async () => {
      await this.#inner.finalize();
      this.finalized = true;
    });
  }

  /** The job is over: reject what is pending and everything after with `error`. */
  end(error: DatError): void {
    this.#ended ??= error;
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const reject of pending) reject(this.#ended);
  }

  #call<T>(operation: () => Promise<T>): Promise<T> {
    this.joined = true;
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    return new Promise<T>((resolve, reject) => {
      this.#pending.add(reject);
      operation()
        .then(resolve, reject)
        .finally(() => this.#pending.delete(reject));
    });
  }
}
