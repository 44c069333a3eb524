import { AsyncResource } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { describe, requireFunction, requireInteger } from '../provider-kit/validate.js';
import { EventHeap } from './event-heap.js';
import { driverHopStarted, foreignImmediates, queueDriverHop } from './settle-probe.js';
import { SimClock, type VirtualTimeSource } from './sim-clock.js';
import { SimDeadlockError } from './sim-deadlock-error.js';
import { SimRankTable, settleWait, type WaitDescription } from './sim-rank-table.js';
import type { SimAbort, SimBlockedRank, SimOutcome, SimRunOptions, SimRunResult, SimStats } from './sim-run.js';
import { requireFiniteAtLeast, requirePositive } from './time-arguments.js';

/** The kernel's settings: the host memory-copy speed that `chargeCopy` uses. */
export interface SimKernelOptions {
  /** The host's memory-copy speed that every rank's `chargeCopy` uses, bytes per ns. Default 10. */
  readonly copyBytesPerNs?: number;
}

/** A rank's main: the rank's whole program, blocking only by awaiting. */
export type SimRankMain = () => Promise<void>;

type Action = (arg: unknown) => void;

const DEFAULT_COPY_BYTES_PER_NS = 10;
const DEFAULT_TIMEOUT_MS = 60_000;
/** Ranks whose clocks, waits and holds may be used before `run()` says how many there are. */
const MAX_RANKS = 1 << 24;
/**
 * Driver hops queued together. Node drains the microtask queues between the immediates of one check
 * phase, so each hop of a batch still starts only when JS work has settled, and one event-loop
 * iteration (with its poll system call) advances up to this many time steps instead of one.
 */
const HOP_BATCH = 16;
/** Cancelled handles are kept until their event comes up; past this many, stale ones are pruned. */
const CANCELLED_PRUNE_THRESHOLD = 64;

type Phase = 'idle' | 'running' | 'ended';

/**
 * The discrete-event kernel of the simulator (DESIGN §6): global virtual time in ns, an event heap,
 * and the ranks of one job as async tasks of this process.
 *
 * `run()` starts every rank's main, then repeats: let all JS work settle (see `settle-probe.ts`),
 * then take every event of the smallest time, set `now` to it and run their actions (which resolve
 * promises, push EVD events, wake ranks). Time therefore advances only when every rank is blocked,
 * and the same program gives the same times and event order on every run. Nothing runs at a time
 * earlier than `now`.
 *
 * Ranks (and the providers and runtimes under them) say what they wait for with `blockedOn`, so
 * that a deadlock — no event left, ranks still blocked — is reported naming each one.
 */
export class SimKernel implements VirtualTimeSource {
  private time = 0;
  private readonly heap = new EventHeap<Action, unknown>();
  private readonly cancelled = new Set<number>();
  private readonly copyBytesPerNs: number;
  private readonly clocks: SimClock[] = [];
  private readonly ranks = new SimRankTable();

  private phase: Phase = 'idle';
  private size = 0;
  private abortRecord: SimAbort | undefined;
  private endRequest: SimOutcome | undefined;
  private stopOnFailure = true;
  private holdTimeoutMs = DEFAULT_TIMEOUT_MS;
  private settleTimeoutMs = DEFAULT_TIMEOUT_MS;
  private signal: AbortSignal | undefined;
  private settleRun: { resolve(result: SimRunResult): void; reject(error: unknown): void } | undefined;
  /** The ranks' mains, each started once (`options.startWindow`), and the next one to start. */
  private unstarted: (() => void)[] = [];
  private nextUnstarted = 0;
  /** Queues a driver hop in the async context of `run()`'s caller, whoever calls it (a rank releasing a hold, aborting). */
  private hopFromOutside: () => void = () => this.queueHop();
  /** Driver hops queued and not yet run. */
  private hopsQueued = 0;
  /** The driver waits for held ranks (no hop queued). */
  private parked = false;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** Wall time since which `setImmediate` work has kept the driver from advancing; NaN when settled. */
  private unsettledSince = Number.NaN;

  private eventsProcessed = 0;
  private timeSteps = 0;
  private settleRounds = 0;
  private wallStart = Number.NaN;
  private wallEnd = Number.NaN;
  /** Free-running mode is on (see `enableFreeRunning`). */
  private freeRunning = false;
  /** A free-running hop is queued. */
  private freeHopQueued = false;

  constructor(options: SimKernelOptions = {}) {
    this.copyBytesPerNs = requirePositive(options.copyBytesPerNs ?? DEFAULT_COPY_BYTES_PER_NS, 'options.copyBytesPerNs');
  }

  /** Global virtual time in ns: the time of the events being processed; starts at 0. */
  get now(): number {
    return this.time;
  }

  /** Rank `rank`'s clock (created on first use; the same object every time). */
  clock(rank: number): SimClock {
    this.checkRank(rank);
    return (this.clocks[rank] ??= new SimClock(this, this.copyBytesPerNs));
  }

  /**
   * Run `action(arg)` when virtual time reaches `atNs` (≥ `now`, finite). Events at equal times
   * run in the order they were scheduled. Returns a handle for `cancel` (≥ 1). Passing a shared
   * function and a per-event `arg` saves a closure per event on a hot path. Once the run has
   * ended nothing is scheduled (the ranks still running are abandoned) and 0 is returned.
   */
  schedule(atNs: number, action: () => void): number;
  schedule<A>(atNs: number, action: (arg: A) => void, arg: A): number;
  schedule(atNs: number, action: (arg: never) => void, arg?: unknown): number {
    if (typeof atNs !== 'number' || !(atNs >= this.time) || atNs === Infinity) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `atNs must be a finite number >= now (${this.time} ns), got ${describe(atNs)}`, { argument: 'atNs' });
    }
    if (typeof action !== 'function') requireFunction(action, 'action');
    if (this.phase === 'ended') return 0;
    const handle = this.heap.push(atNs, action as Action, arg);
    if (this.freeRunning && this.phase === 'idle' && !this.freeHopQueued) this.queueFreeHop();
    return handle;
  }

  /**
   * Free-running mode, for code that drives simulated objects directly (a provider's conformance
   * tests) rather than as ranks of `run()`: while no run is active, queued events are processed on
   * `setImmediate` rounds, one virtual time per round, each round only when JS work has settled (the
   * rule `run()` follows). There is no deadlock detection: with nothing queued the rounds stop until
   * the next `schedule`. Once `run()` starts, its driver takes over. Idempotent.
   */
  enableFreeRunning(): void {
    this.freeRunning = true;
    if (this.phase === 'idle' && !this.freeHopQueued && this.heap.size > 0) this.queueFreeHop();
  }

  private queueFreeHop(): void {
    this.freeHopQueued = true;
    queueDriverHop(this.freeStep);
  }

  /** One free-running round (see `enableFreeRunning`). An action that throws is rethrown from here: an uncaught error, as a bug should be. */
  private readonly freeStep = (): void => {
    driverHopStarted();
    this.freeHopQueued = false;
    if (this.phase !== 'idle') return;
    if (foreignImmediates() > 0) return this.queueFreeHop();
    const t = this.nextEventTime();
    if (t === Infinity) return;
    this.time = t;
    this.timeSteps++;
    const heap = this.heap;
    try {
      while (heap.size > 0 && heap.peekTime() === t && this.phase === 'idle') {
        const action = heap.pop() as Action;
        if (this.cancelled.size > 0 && this.cancelled.delete(heap.poppedSeq)) continue;
        this.eventsProcessed++;
        action(heap.poppedData);
      }
    } finally {
      if (this.phase === 'idle' && heap.size > 0 && !this.freeHopQueued) this.queueFreeHop();
    }
  };

  /** Drop a scheduled event; 0 and handles of events that have run are ignored. */
  cancel(handle: number): void {
    requireInteger(handle, 'handle', 0, Number.MAX_SAFE_INTEGER);
    if (handle === 0 || this.heap.size === 0) return;
    this.cancelled.add(handle);
    if (this.cancelled.size > CANCELLED_PRUNE_THRESHOLD && this.cancelled.size > this.heap.size) this.heap.retainQueued(this.cancelled);
  }

  /**
   * Declare that `rank` waits for `promise` (`what` as a deadlock report shows it, e.g.
   * `evd.wait() on its receive EVD`, `fence()`, or a function writing it when the report is made);
   * returns a promise settling as `promise` does. A held rank that declares a wait is released: it
   * has reached the kernel.
   */
  blockedOn<T>(rank: number, what: WaitDescription, promise: PromiseLike<T>): Promise<T> {
    this.checkRank(rank);
    if (typeof what !== 'function') requireDescription(what, 'what');
    if (typeof promise?.then !== 'function') {
      throw new DatError(DatStatus.INVALID_PARAMETER, `promise must be a promise, got ${describe(promise)}`, { argument: 'promise' });
    }
    const waits = this.ranks.declareWait(rank, what);
    if (this.ranks.isHeld(rank)) this.release(rank);
    return Promise.resolve(promise).then(
      (value) => {
        settleWait(waits, what);
        return value;
      },
      (error: unknown) => {
        settleWait(waits, what);
        throw error;
      },
    );
  }

  /** Block `rank` for `ns` of virtual time from its clock (an idle wait, where `clock.charge` is CPU work). */
  sleep(rank: number, ns: number): Promise<void> {
    const clock = this.clock(rank);
    requireFiniteAtLeast(ns, 'ns', 0);
    const at = clock.nowNs + ns;
    return this.blockedOn(rank, `sleep(${ns} ns) until ${at} ns`, new Promise<void>((resolve) => this.schedule(at, resolve)));
  }

  /**
   * Keep virtual time still while `rank` does work the kernel cannot see (I/O: importing its
   * program, reading a file) — without it the rank would look blocked. Ends with `release`, the
   * rank's next `blockedOn`, or the end of its main; `options.holdTimeoutMs` bounds it.
   * Several held ranks resume in the order their I/O completes, which is wall-clock order: for
   * determinism they should meet in a wait that an event ends (waking them in rank order) before
   * they schedule anything.
   */
  hold(rank: number, what: string): void {
    this.checkRank(rank);
    requireDescription(what, 'what');
    this.ranks.hold(rank, what);
  }

  /**
   * End a `hold` of `rank`: virtual time may move again once no rank is held.
   * @throws DatError INVALID_PARAMETER for a rank outside the job.
   */
  release(rank: number): void {
    this.checkRank(rank);
    const held = this.ranks.isHeld(rank);
    if (held) this.startNextRank();
    if (this.ranks.release(rank)) this.unpark();
    else if (held) this.restartHoldTimer();
  }

  /** End the run on behalf of `rank` (its `runtime.abort`): `run()` resolves promptly with outcome `aborted`. */
  abort(rank: number, code: number, message: string): void {
    this.checkRank(rank);
    requireInteger(code, 'code', -(2 ** 31), 2 ** 31 - 1);
    if (typeof message !== 'string') throw new DatError(DatStatus.INVALID_PARAMETER, `message must be a string, got ${describe(message)}`, { argument: 'message' });
    if (this.phase === 'ended' || this.abortRecord !== undefined) return;
    this.abortRecord = { rank, code, message, atNs: this.clock(rank).nowNs };
    this.requestEnd('aborted');
  }

  /** Unfinished ranks and what each waits for, in rank order (e.g. for a job timeout's report). */
  blockedRanks(): SimBlockedRank[] {
    return this.ranks.blocked();
  }

  get stats(): SimStats {
    const end = Number.isNaN(this.wallEnd) ? performance.now() : this.wallEnd;
    const wallMs = Number.isNaN(this.wallStart) ? 0 : end - this.wallStart;
    return {
      eventsProcessed: this.eventsProcessed,
      timeSteps: this.timeSteps,
      settleRounds: this.settleRounds,
      wallMs,
      eventsPerSecond: wallMs > 0 ? (this.eventsProcessed * 1000) / wallMs : 0,
      nowNs: this.time,
    };
  }

  /**
   * Run `ranks[r]` as rank r, each started from its own microtask (so each has its own async
   * context), until every main has ended, one failed (`stopOnFailure`), a rank aborted, or
   * `options.signal` aborted. Rejects with `SimDeadlockError` when no event is left and ranks are
   * still blocked, and with a DatError when an event's action throws or a timeout expires. Once per kernel.
   */
  run(ranks: readonly SimRankMain[], options: SimRunOptions = {}): Promise<SimRunResult> {
    if (this.phase !== 'idle') throw new DatError(DatStatus.INVALID_STATE, 'run() has already been called on this kernel; make a new SimKernel for another run');
    if (!Array.isArray(ranks) || ranks.length === 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `ranks must be a non-empty array of functions, got ${describe(ranks)}`, { argument: 'ranks' });
    }
    ranks.forEach((main, r) => requireFunction(main, `ranks[${r}]`));
    const startHeld = options.startHeld;
    if (startHeld !== undefined) requireDescription(startHeld, 'options.startHeld');
    const window = requireInteger(options.startWindow ?? ranks.length, 'options.startWindow', 1, 2 ** 31 - 1);
    // Only held ranks are released one by one; without startHeld every rank starts at once.
    const startWindow = startHeld === undefined ? ranks.length : window;
    this.holdTimeoutMs = requireInteger(options.holdTimeoutMs ?? DEFAULT_TIMEOUT_MS, 'options.holdTimeoutMs', 1, 2 ** 31 - 1);
    this.settleTimeoutMs = requireInteger(options.settleTimeoutMs ?? DEFAULT_TIMEOUT_MS, 'options.settleTimeoutMs', 1, 2 ** 31 - 1);
    this.stopOnFailure = options.stopOnFailure ?? true;
    this.size = ranks.length;
    this.ranks.begin(this.size);
    this.phase = 'running';
    this.wallStart = performance.now();
    this.hopFromOutside = AsyncResource.bind(() => this.queueHop());
    return new Promise<SimRunResult>((resolve, reject) => {
      this.settleRun = { resolve, reject };
      this.signal = options.signal;
      if (this.signal?.aborted) return this.end('stopped');
      this.signal?.addEventListener('abort', this.onSignal, { once: true });
      if (startHeld !== undefined) for (let r = 0; r < this.size; r++) this.ranks.hold(r, startHeld);
      const started = Promise.resolve();
      this.unstarted = ranks.map((main, r) => () => {
        started.then(() => main()).then(
          () => this.rankEnded(r, undefined),
          (error: unknown) => this.rankEnded(r, { error }),
        );
      });
      for (let i = 0; i < startWindow; i++) this.startNextRank();
      this.queueHopBatch();
    });
  }

  /** One driver round, run from `setImmediate`: JS work has settled unless other immediates are queued. */
  private readonly step = (): void => {
    driverHopStarted();
    this.hopsQueued--;
    this.settleRounds++;
    if (this.phase !== 'running') return;
    if (this.endRequest !== undefined) return this.end(this.endRequest);
    if (foreignImmediates() > 0) return this.hopWhileUnsettled();
    this.unsettledSince = Number.NaN;
    if (this.ranks.heldCount > 0) return this.park();
    if (this.ranks.unfinished === 0) return this.end(this.ranks.failures.length > 0 ? 'failed' : 'completed');
    const t = this.nextEventTime();
    if (t === Infinity) return this.fail(new SimDeadlockError(this.time, this.ranks.blocked(), [...this.ranks.failures]));
    this.time = t;
    this.timeSteps++;
    const heap = this.heap;
    const cancelled = this.cancelled;
    try {
      while (heap.size > 0 && heap.peekTime() === t && this.endRequest === undefined) {
        const action = heap.pop() as Action;
        if (cancelled.size > 0 && cancelled.delete(heap.poppedSeq)) continue;
        this.eventsProcessed++;
        action(heap.poppedData);
      }
    } catch (error) {
      return this.fail(new DatError(DatStatus.INTERNAL_ERROR, `an event's action threw at ${t} ns of virtual time: ${errorText(error)}`, { cause: error }));
    }
    if (this.hopsQueued === 0) this.queueHopBatch();
  };

  /** One hop: after every immediate queued so far (foreign work runs first). */
  private queueHop(): void {
    this.hopsQueued++;
    queueDriverHop(this.step);
  }

  /** A batch of hops for the next event-loop iteration (see HOP_BATCH). */
  private queueHopBatch(): void {
    for (let i = 0; i < HOP_BATCH; i++) this.queueHop();
  }

  /** Time of the earliest event not cancelled (dropping cancelled ones on the way); Infinity when none. */
  private nextEventTime(): number {
    const heap = this.heap;
    while (heap.size > 0) {
      if (this.cancelled.size === 0 || !this.cancelled.delete(heap.peekSeq())) return heap.peekTime();
      heap.pop();
    }
    this.cancelled.clear();
    return Infinity;
  }

  private hopWhileUnsettled(): void {
    const nowMs = performance.now();
    if (Number.isNaN(this.unsettledSince)) this.unsettledSince = nowMs;
    else if (nowMs - this.unsettledSince > this.settleTimeoutMs) {
      return this.fail(
        new DatError(
          DatStatus.INTERNAL_ERROR,
          `JS work did not settle within ${this.settleTimeoutMs} ms (options.settleTimeoutMs): something keeps queueing setImmediate callbacks — a rank polling instead of awaiting?`,
        ),
      );
    }
    // Hops still queued in this batch run before the foreign immediates: the last of them queues the
    // one that runs after them.
    if (this.hopsQueued === 0) this.queueHop();
  }

  /** Held ranks keep time still: wait (no hop queued) until the last hold ends or the hold timeout expires. */
  private park(): void {
    this.parked = true;
    this.holdTimer ??= setTimeout(this.onHoldTimeout, this.holdTimeoutMs);
  }

  /**
   * A hold ended and others remain: the hold timeout bounds the time without progress, not the
   * whole of the holds (16,384 ranks load their program one after another for minutes).
   */
  private restartHoldTimer(): void {
    if (this.holdTimer === undefined) return;
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(this.onHoldTimeout, this.holdTimeoutMs);
  }

  private unpark(): void {
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    if (!this.parked || this.phase !== 'running') return;
    this.parked = false;
    this.hopFromOutside();
  }

  private readonly onHoldTimeout = (): void => {
    this.holdTimer = undefined;
    const holds = this.ranks.holdDescriptions();
    const held = holds.length > 8 ? `${holds.slice(0, 8).join('; ')}; and ${holds.length - 8} more` : holds.join('; ');
    this.fail(new DatError(DatStatus.TIMEOUT_EXPIRED, `held ranks kept virtual time still for more than ${this.holdTimeoutMs} ms without any hold ending (options.holdTimeoutMs): ${held}`));
  };

  private readonly onSignal = (): void => this.requestEnd('stopped');

  /** Start the next rank's main not yet started (`options.startWindow`), if any. */
  private startNextRank(): void {
    if (this.nextUnstarted < this.unstarted.length) this.unstarted[this.nextUnstarted++]!();
  }

  private rankEnded(rank: number, failure: { error: unknown } | undefined): void {
    if (this.phase !== 'running') return;
    if (!this.ranks.end(rank, this.clock(rank).nowNs, failure)) return;
    this.release(rank);
    if (failure !== undefined && this.stopOnFailure) this.requestEnd('failed');
  }

  private requestEnd(outcome: SimOutcome): void {
    if (this.phase !== 'running') return;
    this.endRequest ??= outcome;
    if (this.parked) {
      this.parked = false;
      this.hopFromOutside();
    }
  }

  private end(outcome: SimOutcome): void {
    const pendingEvents = this.pendingEvents();
    this.stop();
    this.settleRun?.resolve({
      outcome,
      endNs: this.time,
      rankEndNs: this.ranks.endTimes(),
      failures: [...this.ranks.failures],
      aborted: this.abortRecord,
      pendingEvents,
      stats: this.stats,
    });
  }

  private fail(error: unknown): void {
    this.stop();
    this.settleRun?.reject(error);
  }

  private stop(): void {
    this.phase = 'ended';
    this.wallEnd = performance.now();
    this.parked = false;
    if (this.holdTimer !== undefined) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.signal?.removeEventListener('abort', this.onSignal);
    this.heap.clear();
    this.cancelled.clear();
  }

  private pendingEvents(): number {
    if (this.cancelled.size > 0) this.heap.retainQueued(this.cancelled);
    return this.heap.size - this.cancelled.size;
  }

  private checkRank(rank: number): void {
    const limit = this.phase === 'idle' ? MAX_RANKS : this.size;
    if (typeof rank !== 'number' || !Number.isSafeInteger(rank) || rank < 0 || rank >= limit) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `rank must be an integer in [0, ${limit - 1}], got ${describe(rank)}`, { argument: 'rank' });
    }
  }
}

function requireDescription(what: unknown, argument: string): void {
  if (typeof what !== 'string' || what.length === 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a non-empty string (or, for blockedOn, a function returning one) saying what the rank waits for, got ${describe(what)}`, { argument });
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
