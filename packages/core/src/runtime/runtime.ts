/** DI token of the rank's {@link Runtime} (singleton, PMI or simulator). */
export const Runtime: unique symbol = Symbol('Runtime');

/**
 * A rank's place in its job (DESIGN §5): who it is, the job's key-value space, and its clock.
 * Implemented by `SingletonRuntime`, `PmiRuntime` and the simulator's per-rank runtime.
 */
export interface Runtime {
  readonly rank: number;
  readonly size: number;
  readonly clock: Clock;
  /**
   * The ranks that share this rank's host, ascending, when the launcher says (PMI-2's
   * `PMI_process_mapping` under Slurm or Hydra); undefined when it does not.
   */
  readonly localRanks?: readonly number[];
  /** Publish a value; others see it after the next `fence()`. Values must be printable without spaces. */
  put(key: string, value: string): Promise<void>;
  /** Collective: makes every `put` before it visible to every rank. */
  fence(): Promise<void>;
  /** Read a published value; rejects if the key is unknown. */
  get(key: string): Promise<string>;
  /** Collective: resolves once every rank of the job has entered it. */
  barrier(): Promise<void>;
  /**
   * Say what this rank waits for (`what`, e.g. "MPI recv from 1 tag 5") until `promise` settles, so
   * that a simulator's deadlock report names it; returns a promise settling as `promise` does.
   * Optional: runtimes without a simulator have nothing to report to.
   */
  declareWait?<T>(what: string, promise: Promise<T>): Promise<T>;
  /** End the whole job with `code`; never returns. */
  abort(code: number, message: string): Promise<never>;
  /** Leave the job cleanly (PMI `finalize`); the last call a rank makes on its runtime. */
  finalize(): Promise<void>;
}

/** Wall-clock time, or the rank's virtual time under the simulator. */
export interface Clock {
  /** Seconds since an arbitrary origin (the MPI_Wtime contract). */
  now(): number;
  /** Resolution of `now()`, in seconds. */
  readonly tick: number;
  /** Account `ns` nanoseconds of CPU work to this rank (no-op on wall-clock time). */
  charge(ns: number): void;
  /** Account a memory copy of `bytes` at the machine's copy speed (no-op on wall-clock time). */
  chargeCopy(bytes: number): void;
  /**
   * Resolves `ns` nanoseconds from now on this clock (virtual time under the simulator), for a
   * library's own timeouts. A wall-clock timer does not keep the process alive.
   */
  delay(ns: number): Promise<void>;
  /**
   * Runs `action` once `ns` nanoseconds have passed on this clock unless the returned function is
   * called first: a library's timeout that can be cancelled. Under the simulator it is virtual time,
   * so that a timeout means the same at 16 ranks as at 16,384, where the host takes far longer to
   * simulate the same microseconds. Optional: `startTimeout` falls back to a wall-clock timer.
   */
  after?(ns: number, action: () => void): () => void;
}
