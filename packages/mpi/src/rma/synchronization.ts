import { ErrorClass, MpiError } from '../api/errors.js';
import type { RmaChannel } from './channel.js';
import { LOCK_STEP_NS } from './costs.js';
import type { LockMode } from './lock-manager.js';
import type { OriginState } from './paths.js';
import type { SyncReplies } from './replies.js';
import type { RmaTarget } from './target.js';
import { RmaKind, emptyRmaHeader } from './wire.js';

/** MPI's assertions (MPICH's values). Hints all, but MODE_NOSUCCEED: no epoch starts at that fence. */
export const MODE_NOCHECK = 1024;
/** Assertion: the local window was not updated by local stores since the last synchronization. */
export const MODE_NOSTORE = 2048;
/** Assertion: the local window will not be updated by put or accumulate until the next synchronization. */
export const MODE_NOPUT = 4096;
/** Assertion (fence): no operations of this rank complete at this fence (none were issued before it). */
export const MODE_NOPRECEDE = 8192;
/** Assertion (fence): no operations follow this fence; it starts no epoch. */
export const MODE_NOSUCCEED = 16384;
/** Every assertion bit. */
export const MODE_ALL = MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED;

/** The all-to-all exchange of per-target counts a fence needs (the window communicator's alltoall). */
export type CountExchange = (issued: Float64Array, expected: Float64Array) => Promise<void>;

/**
 * A window's epochs (MPI-3.1 §11.5) by the LAPI one-sided patent's counts: fence exchanges every rank's
 * per-target operation counts all to all and waits until what arrived matches; PSCW and lock send
 * them point to point (COMPLETE, UNLOCK, FLUSH carry the count the target must reach). Before
 * sending a count, the origin waits until its own operations are complete here (direct RDMA writes
 * complete at the target, so they need no count). Refusals and transfer failures come back as the
 * synchronisation's error.
 */
export class Epochs {
  #fenceOpen = false;
  #access: readonly number[] | undefined;
  #exposure: readonly number[] | undefined;
  readonly #locks = new Map<number, LockMode>();
  #lockAll = false;

  constructor(
    private readonly channel: RmaChannel,
    private readonly origin: OriginState,
    private readonly target: RmaTarget,
    private readonly replies: SyncReplies,
    private readonly exchange: CountExchange,
  ) {}

  /** Whether an operation to `target` is inside an access epoch. */
  covers(target: number): boolean {
    return this.#fenceOpen || this.#lockAll || this.#locks.has(target) || (this.#access?.includes(target) ?? false);
  }

  /** Whether any epoch other than a fence's is open (free and fence refuse then). */
  get busy(): string | undefined {
    if (this.#lockAll) return 'lockAll is held';
    if (this.#locks.size > 0) return `a lock on rank ${[...this.#locks.keys()][0]} is held`;
    if (this.#access !== undefined) return 'an access epoch (start) is open';
    if (this.#exposure !== undefined) return 'an exposure epoch (post) is open';
    return undefined;
  }

  async fence(assert: number): Promise<void> {
    const busy = this.busy;
    if (busy !== undefined) throw syncError(`fence while ${busy}`, 'win');
    await this.origin.outstanding.idle();
    const expected = new Float64Array(this.channel.size);
    await this.exchange(this.origin.issued, expected);
    await this.target.appliedAll(expected);
    this.origin.unconfirmed.fill(0);
    this.#fenceOpen = (assert & MODE_NOSUCCEED) === 0;
    this.#raise(this.origin.outstanding.takeError());
  }

  post(group: readonly number[]): void {
    if (this.#exposure !== undefined) throw syncError('post while an exposure epoch is open (wait or test first)', 'group');
    this.#exposure = group;
    for (const origin of group) this.#send(origin, RmaKind.POST, 0);
  }

  async start(group: readonly number[]): Promise<void> {
    if (this.#access !== undefined) throw syncError('start while an access epoch is open (complete first)', 'group');
    if (this.#lockAll || this.#locks.size > 0) throw syncError(`start while ${this.busy}`, 'group');
    this.#fenceOpen = false;
    this.#access = group;
    await Promise.all(group.map((t) => this.replies.posted(t)));
  }

  async complete(): Promise<void> {
    const group = this.#access;
    if (group === undefined) throw syncError('complete without start', 'win');
    this.#access = undefined;
    // COMPLETE must not overtake what the target does not count; ordered RDMA writes land before it
    // on their connection, so it need not wait for their completions: only the return does (the
    // origin's buffers reusable).
    await Promise.all(
      group.map(async (t) => {
        await this.origin.outstanding.overtakable(t);
        this.origin.unconfirmed[t] = 0;
        this.#send(t, RmaKind.COMPLETE, this.origin.issued[t]);
      }),
    );
    await Promise.all(group.map((t) => this.origin.outstanding.idle(t)));
    for (const t of group) this.#raise(this.origin.outstanding.takeError(t));
  }

  async wait(): Promise<void> {
    const group = this.#exposure;
    if (group === undefined) throw syncError('wait without post', 'win');
    await Promise.all(group.map((o) => this.target.completed(o)));
    this.#exposure = undefined;
  }

  test(): boolean {
    const group = this.#exposure;
    if (group === undefined) throw syncError('test without post', 'win');
    if (!this.target.allCompleted(group)) return false;
    this.#exposure = undefined;
    return true;
  }

  async lock(rank: number, mode: LockMode): Promise<void> {
    if (this.#lockAll) throw syncError(`lock on rank ${rank} while lockAll is held`, 'rank');
    if (this.#locks.has(rank)) throw syncError(`rank ${rank} is already locked by this rank (unlock it first)`, 'rank');
    if (this.#access !== undefined) throw syncError(`lock while ${this.busy}`, 'rank');
    this.#fenceOpen = false;
    this.#locks.set(rank, mode);
    const granted = this.replies.granted(rank);
    this.#send(rank, RmaKind.LOCK, mode === 'exclusive' ? 1 : 0);
    try {
      await granted;
    } catch (error) {
      this.#locks.delete(rank);
      throw error;
    }
  }

  async unlock(rank: number): Promise<void> {
    if (!this.#locks.has(rank)) throw syncError(`unlock of rank ${rank}, which this rank has not locked`, 'rank');
    this.#locks.delete(rank);
    await this.#release(rank);
  }

  async lockAll(): Promise<void> {
    if (this.#lockAll || this.#locks.size > 0 || this.#access !== undefined) throw syncError(`lockAll while ${this.busy}`, 'win');
    this.#fenceOpen = false;
    this.#lockAll = true;
    const grants: Promise<void>[] = [];
    for (let t = 0; t < this.channel.size; t++) {
      grants.push(this.replies.granted(t));
      this.#send(t, RmaKind.LOCK, 0);
    }
    const results = await Promise.allSettled(grants);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed === undefined) return;
    // Not every member granted (one was lost): the locks that were granted are given back.
    this.#lockAll = false;
    await Promise.allSettled(results.map((r, t) => (r.status === 'fulfilled' ? this.#release(t) : undefined)));
    throw failed.reason;
  }

  async unlockAll(): Promise<void> {
    if (!this.#lockAll) throw syncError('unlockAll without lockAll', 'win');
    this.#lockAll = false;
    const results = await Promise.allSettled(Array.from({ length: this.channel.size }, (_, t) => this.#release(t)));
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  /** A passive-target epoch's flush: `rank`'s operations complete at `rank` (undefined: every locked rank). */
  async flush(rank: number | undefined): Promise<void> {
    const ranks = rank === undefined ? this.#passiveTargets() : [this.#requirePassive(rank)];
    await Promise.all(
      ranks.map(async (t) => {
        await this.origin.outstanding.idle(t);
        await this.origin.am?.applied(t);
        // Direct RDMA completes at the target, active messages are counted back by LAPI: only
        // messages without a reply need the round trip.
        if (this.origin.unconfirmed[t] > 0) {
          this.origin.unconfirmed[t] = 0;
          const flushed = this.replies.flushed(t);
          this.#send(t, RmaKind.FLUSH, this.origin.issued[t]);
          this.#refusals(t, await flushed);
        }
      }),
    );
    for (const t of ranks) this.#raise(this.origin.outstanding.takeError(t));
  }

  /** Operations complete here (their buffers reusable, fetched data arrived). */
  async flushLocal(rank: number | undefined): Promise<void> {
    if (rank !== undefined) this.#requirePassive(rank);
    else if (!this.#lockAll && this.#locks.size === 0) throw syncError('flushLocalAll outside a passive-target epoch (lock or lockAll)', 'win');
    await this.origin.outstanding.idle(rank);
    this.#raise(this.origin.outstanding.takeError(rank));
  }

  #passiveTargets(): number[] {
    if (this.#lockAll) return Array.from({ length: this.channel.size }, (_, t) => t);
    if (this.#locks.size === 0) throw syncError('flushAll outside a passive-target epoch (lock or lockAll)', 'win');
    return [...this.#locks.keys()];
  }

  #requirePassive(rank: number): number {
    if (!this.#lockAll && !this.#locks.has(rank)) throw syncError(`flush of rank ${rank}, which this rank has not locked`, 'rank');
    return rank;
  }

  async #release(rank: number): Promise<void> {
    await this.origin.outstanding.idle(rank);
    this.origin.unconfirmed[rank] = 0;
    const unlocked = this.replies.unlocked(rank);
    this.#send(rank, RmaKind.UNLOCK, this.origin.issued[rank]);
    this.#refusals(rank, await unlocked);
    this.#raise(this.origin.outstanding.takeError(rank));
  }

  #refusals(rank: number, refused: number): void {
    if (refused > 0) this.origin.outstanding.fail(rank, new MpiError(ErrorClass.ERR_RMA_RANGE, `rank ${rank} refused ${refused} operation(s) outside its window; its window is unchanged by them`, { argument: 'targetDisp' }));
  }

  #raise(error: MpiError | undefined): void {
    const failure = this.channel.failure;
    if (failure !== undefined) {
      this.channel.failure = undefined;
      throw new MpiError(ErrorClass.ERR_INTERN, `a one-sided message could not be handled: ${String(failure)}`, { cause: failure });
    }
    if (error !== undefined) throw error;
  }

  #send(rank: number, kind: RmaKind, value: number): void {
    this.channel.clock.charge(LOCK_STEP_NS);
    const h = emptyRmaHeader();
    h.kind = kind;
    h.value = value;
    this.channel.sendControl(rank, h);
  }
}

export function syncError(message: string, argument: string): MpiError {
  return new MpiError(ErrorClass.ERR_RMA_SYNC, message, { argument });
}
