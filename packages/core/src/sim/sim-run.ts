// What `SimKernel.run()` takes and gives back.

/** Options of one `SimKernel.run()`. */
export interface SimRunOptions {
  /** End the run as soon as a rank's main rejects (outcome `failed`). Default true. */
  readonly stopOnFailure?: boolean;
  /**
   * Start every rank held with this description (see `SimKernel.hold`): virtual time stands still
   * until each rank has declared its first wait, been released, or ended — for ranks that begin
   * with I/O the kernel cannot see, such as importing their program.
   */
  readonly startHeld?: string;
  /**
   * With `startHeld`: how many ranks' mains run before any is released; each release (or end) of a
   * held rank starts the next, in rank order. Default: all at once. Virtual time is the same either
   * way (it stands still until every rank is released); what it bounds is how much of the ranks'
   * start-up is under way at once in the host's memory.
   */
  readonly startWindow?: number;
  /** Reject (TIMEOUT_EXPIRED) when held ranks keep virtual time still for longer than this with none of their holds ending. Default 60 000. */
  readonly holdTimeoutMs?: number;
  /** Reject (INTERNAL_ERROR) when `setImmediate` work keeps coming for longer than this (a rank polling instead of awaiting). Default 60 000. */
  readonly settleTimeoutMs?: number;
  /** Ends the run (outcome `stopped`) when aborted; the ranks still running are abandoned. */
  readonly signal?: AbortSignal;
}

/** How a simulated run ended. */
export type SimOutcome = 'completed' | 'failed' | 'aborted' | 'stopped';

/** A rank whose main failed: the error and the virtual time it failed at. */
export interface SimRankFailure {
  readonly rank: number;
  readonly error: unknown;
  /** The rank's virtual time when its main rejected. */
  readonly atNs: number;
}

/** A rank that aborted the job: its code, message and virtual time. */
export interface SimAbort {
  readonly rank: number;
  readonly code: number;
  readonly message: string;
  readonly atNs: number;
}

/** An unfinished rank and what it waits for (its declared waits, or a note that it declared none). */
export interface SimBlockedRank {
  readonly rank: number;
  readonly waitingFor: string;
}

/** What a simulated run cost: events run, virtual times advanced to, wall time and the event rate. */
export interface SimStats {
  /** Event actions run (cancelled events not counted). */
  readonly eventsProcessed: number;
  /** Distinct virtual times the kernel advanced to. */
  readonly timeSteps: number;
  /** Driver rounds (one `setImmediate` each): time steps plus the rounds spent letting JS work settle. */
  readonly settleRounds: number;
  readonly wallMs: number;
  readonly eventsPerSecond: number;
  /** Global virtual time, ns. */
  readonly nowNs: number;
}

/** How a simulated run ended, with the failures or the abort, the virtual end time and its statistics. */
export interface SimRunResult {
  /**
   * `completed`: every rank's main resolved. `failed`: a main rejected (see `failures`).
   * `aborted`: a rank called `SimKernel.abort` (see `aborted`). `stopped`: `options.signal` aborted.
   */
  readonly outcome: SimOutcome;
  /** Global virtual time when the run ended, ns. */
  readonly endNs: number;
  /** Each rank's virtual time when its main resolved; NaN for a rank that did not. */
  readonly rankEndNs: readonly number[];
  readonly failures: readonly SimRankFailure[];
  readonly aborted: SimAbort | undefined;
  /** Events still queued when the run ended (not run). */
  readonly pendingEvents: number;
  readonly stats: SimStats;
}
