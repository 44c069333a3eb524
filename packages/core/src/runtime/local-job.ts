import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { Clock, Runtime } from './runtime.js';
import { WallClock } from './wall-clock.js';

/** PMI-1 limits as MPICH's Hydra reports them (`get_maxes`): keys up to 64, values up to 1023 characters. */
export const PMI_KEY_MAX = 64;
/** The longest KVS value a runtime accepts (PMI-1's value length limit). */
export const PMI_VALUE_MAX = 1023;

/**
 * Wraps a rank's wait on its peers (`what`: `runtime.fence()`, `runtime.barrier()`), returning a
 * promise that settles as `promise` does. Under the simulator it is `SimKernel.blockedOn`, so that a
 * deadlock report says which ranks wait in which collective.
 */
export type LocalWaitHook = <T>(rank: number, what: string, promise: Promise<T>) => Promise<T>;

/** How an in-process job's runtimes are made: each rank's clock and what an abort does. */
export interface LocalJobOptions {
  /** Each rank's clock; default a `WallClock` per rank (the simulator passes virtual clocks). */
  readonly clock?: (rank: number) => Clock;
  /**
   * Called when a rank aborts, before the job is torn down (a launcher would kill the job here).
   * Whatever it does, every waiting rank's collective then rejects with ABORT.
   */
  readonly onAbort?: (rank: number, code: number, message: string) => void;
  /**
   * Reject a fence / barrier that has not completed after this long. Default: no limit, as under
   * Hydra (in-process ranks may compute for a long while, and simulated ranks in virtual time).
   */
  readonly collectiveTimeoutMs?: number;
  /** Declares each rank's fence / barrier wait (see `LocalWaitHook`); default none. */
  readonly waitHook?: LocalWaitHook;
}

/**
 * `size` ranks in ONE process sharing an in-memory key-value space with PMI-1 semantics: a `put`
 * becomes visible to every rank at the next collective (`fence` or `barrier`, which are the same
 * `barrier_in` under PMI-1). For in-process tests and the simulator's in-process jobs.
 */
export function createLocalJob(size: number, options: LocalJobOptions = {}): Runtime[] {
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `size must be an integer >= 1, got ${String(size)}`, { argument: 'size' });
  }
  if (options.collectiveTimeoutMs !== undefined && !(Number.isSafeInteger(options.collectiveTimeoutMs) && options.collectiveTimeoutMs > 0)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `options.collectiveTimeoutMs must be an integer > 0, got ${String(options.collectiveTimeoutMs)}`, {
      argument: 'options.collectiveTimeoutMs',
    });
  }
  const job = new LocalJob(size, options);
  return Array.from({ length: size }, (_, rank) => new LocalRankRuntime(job, rank, options.clock?.(rank) ?? new WallClock()));
}

interface Arrival {
  readonly resolve: () => void;
  readonly reject: (error: DatError) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The state the ranks share: the committed KVS, puts waiting for the next collective, who is waiting. */
class LocalJob {
  private readonly committed = new Map<string, string>();
  private readonly pending = new Map<string, string>();
  private readonly arrivals = new Map<number, Arrival>();
  private readonly finalizedRanks = new Set<number>();
  /** Why collectives can no longer complete; set by abort or by a rank finalizing. */
  private broken: DatError | undefined;

  constructor(
    readonly size: number,
    private readonly options: LocalJobOptions,
  ) {}

  checkLive(rank: number, call: string): void {
    if (this.broken?.status === DatStatus.ABORT) throw this.broken;
    if (this.finalizedRanks.has(rank)) throw new DatError(DatStatus.INVALID_STATE, `rank ${rank}: runtime.${call}() after finalize()`);
  }

  put(key: string, value: string): void {
    this.pending.set(key, value);
  }

  get(rank: number, key: string): string {
    const value = this.committed.get(key);
    if (value !== undefined) return value;
    const hint = this.pending.has(key) ? ' yet: it was put but no fence() has completed since' : '';
    throw new DatError(DatStatus.INVALID_PARAMETER, `rank ${rank}: KVS key "${key}" not found${hint}`, { argument: 'key' });
  }

  /** `collective`, declared through the wait hook when there is one. */
  wait(rank: number, call: 'fence' | 'barrier'): Promise<void> {
    const arrived = this.collective(rank, call);
    const hook = this.options.waitHook;
    return hook === undefined ? arrived : hook(rank, `runtime.${call}()`, arrived);
  }

  /** A rank's wait on anything (an upper library's request), declared through the wait hook when there is one. */
  declareWait<T>(rank: number, what: string, promise: Promise<T>): Promise<T> {
    const hook = this.options.waitHook;
    return hook === undefined ? promise : hook(rank, what, promise);
  }

  /** `barrier_in`: resolves when every rank has arrived, after committing the puts made before it. */
  collective(rank: number, call: string): Promise<void> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    if (this.arrivals.has(rank)) {
      return Promise.reject(new DatError(DatStatus.INVALID_STATE, `rank ${rank} called ${call}() while its previous fence/barrier is still pending`));
    }
    return new Promise<void>((resolve, reject) => {
      const arrival: Arrival = { resolve, reject, timer: undefined };
      this.arrivals.set(rank, arrival);
      if (this.arrivals.size === this.size) return this.completeCollective();
      const limit = this.options.collectiveTimeoutMs;
      if (limit !== undefined) {
        arrival.timer = setTimeout(() => {
          if (this.arrivals.get(rank) !== arrival) return;
          this.arrivals.delete(rank);
          reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `rank ${rank}: ${call}() did not complete within ${limit} ms; ranks not arrived: ${this.absentRanks().join(', ')}`));
        }, limit);
      }
    });
  }

  finalize(rank: number): void {
    this.finalizedRanks.add(rank);
    if (this.broken !== undefined) return;
    // An all-ranks-finalized job has nothing left to wait for; only a partial one breaks collectives.
    if (this.finalizedRanks.size === this.size) return;
    this.breakCollectives(new DatError(DatStatus.CONNECTION_BROKEN, `rank ${rank} has finalized: a fence/barrier of the job can no longer complete`));
  }

  abort(rank: number, code: number, message: string): DatError {
    const error = new DatError(DatStatus.ABORT, `rank ${rank} aborted the job with code ${code}: ${message}`);
    try {
      this.options.onAbort?.(rank, code, message);
    } finally {
      this.breakCollectives(error);
    }
    return error;
  }

  private breakCollectives(error: DatError): void {
    if (this.broken?.status !== DatStatus.ABORT) this.broken = error;
    const waiting = [...this.arrivals.values()];
    this.arrivals.clear();
    for (const arrival of waiting) {
      if (arrival.timer !== undefined) clearTimeout(arrival.timer);
      arrival.reject(error);
    }
  }

  private completeCollective(): void {
    for (const [key, value] of this.pending) this.committed.set(key, value);
    this.pending.clear();
    // Woken in rank order, not arrival order: under the simulator, ranks that arrived in wall-clock
    // order (after loading their program) must continue in the same order on every run.
    const arrived = [...this.arrivals].sort(([a], [b]) => a - b).map(([, arrival]) => arrival);
    this.arrivals.clear();
    for (const arrival of arrived) {
      if (arrival.timer !== undefined) clearTimeout(arrival.timer);
      arrival.resolve();
    }
  }

  private absentRanks(): number[] {
    return Array.from({ length: this.size }, (_, r) => r).filter((r) => !this.arrivals.has(r));
  }
}

/** One rank's view of a `LocalJob`. */
class LocalRankRuntime implements Runtime {
  readonly size: number;

  constructor(
    private readonly job: LocalJob,
    readonly rank: number,
    readonly clock: Clock,
  ) {
    this.size = job.size;
  }

  async put(key: string, value: string): Promise<void> {
    this.job.checkLive(this.rank, 'put');
    checkKey(key);
    checkValue(key, value);
    this.job.put(key, value);
  }

  async fence(): Promise<void> {
    this.job.checkLive(this.rank, 'fence');
    return this.job.wait(this.rank, 'fence');
  }

  async get(key: string): Promise<string> {
    this.job.checkLive(this.rank, 'get');
    checkKey(key);
    return this.job.get(this.rank, key);
  }

  async barrier(): Promise<void> {
    this.job.checkLive(this.rank, 'barrier');
    return this.job.wait(this.rank, 'barrier');
  }

  declareWait<T>(what: string, promise: Promise<T>): Promise<T> {
    return this.job.declareWait(this.rank, what, promise);
  }

  async abort(code: number, message: string): Promise<never> {
    throw this.job.abort(this.rank, code, message);
  }

  async finalize(): Promise<void> {
    this.job.finalize(this.rank);
  }
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || !/^[^\s=]+$/.test(key)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `KVS key ${JSON.stringify(key)} is not allowed: keys must be non-empty and contain no whitespace or "="`, {
      argument: 'key',
    });
  }
  if (key.length > PMI_KEY_MAX) {
    throw new DatError(DatStatus.LENGTH_ERROR, `KVS key "${key}" is ${key.length} characters; PMI-1 allows at most ${PMI_KEY_MAX}`, { argument: 'key' });
  }
}

function checkValue(key: string, value: string): void {
  if (typeof value !== 'string' || !/^\S*$/.test(value)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `KVS value for key "${key}" is not allowed: values must contain no whitespace`, { argument: 'value' });
  }
  if (value.length > PMI_VALUE_MAX) {
    throw new DatError(DatStatus.LENGTH_ERROR, `KVS value for key "${key}" is ${value.length} characters; PMI-1 allows at most ${PMI_VALUE_MAX}`, {
      argument: 'value',
    });
  }
}
