import type { SimBlockedRank, SimRankFailure } from './sim-run.js';

const RUNNING = 0;
const FINISHED = 1;
const FAILED = 2;

/**
 * The kernel's book of its ranks: which are still running, when each ended, what each has declared
 * it waits for, and which are held (virtual time stands still for them). What the driver decides
 * on and what deadlock reports say. Ranks are not range-checked here; the kernel does that.
 */
export class SimRankTable {
  private states = new Uint8Array(0);
  private endNs: number[] = [];
  /** Per rank: declared waits not yet settled, in the order they were made. */
  private readonly waits: WaitDescription[][] = [];
  private readonly holds: (string | undefined)[] = [];
  private readonly failed: SimRankFailure[] = [];
  private count = 0;
  private running = 0;
  private held = 0;

  /** Ranks whose main has neither resolved nor rejected. */
  get unfinished(): number {
    return this.running;
  }

  get heldCount(): number {
    return this.held;
  }

  get failures(): readonly SimRankFailure[] {
    return this.failed;
  }

  /** Start a run of `size` ranks, all running (waits and holds made before are kept). */
  begin(size: number): void {
    this.count = size;
    this.running = size;
    this.states = new Uint8Array(size);
    this.endNs = new Array<number>(size).fill(Number.NaN);
  }

  /** Records a declared wait; returns the rank's list, from which `settleWait` removes it. */
  declareWait(rank: number, what: WaitDescription): WaitDescription[] {
    const waits = (this.waits[rank] ??= []);
    waits.push(what);
    return waits;
  }

  /** Hold `rank` (again: the description is replaced). */
  hold(rank: number, what: string): void {
    if (this.holds[rank] === undefined) this.held++;
    this.holds[rank] = what;
  }

  /** True when this released the last hold of the run. */
  release(rank: number): boolean {
    if (this.holds[rank] === undefined) return false;
    this.holds[rank] = undefined;
    return --this.held === 0;
  }

  isHeld(rank: number): boolean {
    return this.holds[rank] !== undefined;
  }

  /** A rank's main ended at `atNs`; false when it had already ended (or is not of this run). */
  end(rank: number, atNs: number, failure: { error: unknown } | undefined): boolean {
    if (rank >= this.count || this.states[rank] !== RUNNING) return false;
    this.states[rank] = failure === undefined ? FINISHED : FAILED;
    this.running--;
    if (failure === undefined) this.endNs[rank] = atNs;
    else this.failed.push({ rank, error: failure.error, atNs });
    return true;
  }

  /** Each rank's virtual time when its main resolved; NaN for the others. */
  endTimes(): number[] {
    return [...this.endNs];
  }

  /** Unfinished ranks and what each waits for, in rank order. */
  blocked(): SimBlockedRank[] {
    const blocked: SimBlockedRank[] = [];
    for (let rank = 0; rank < this.count; rank++) {
      if (this.states[rank] !== RUNNING) continue;
      const waits = this.waits[rank] ?? [];
      const held = this.holds[rank];
      const waitingFor = held !== undefined ? `held: ${held}` : waits.length > 0 ? waits.map(describeWait).join('; ') : 'a wait it did not declare (no blockedOn)';
      blocked.push({ rank, waitingFor });
    }
    return blocked;
  }

  /** `rank N: why` for every held rank. */
  holdDescriptions(): string[] {
    return this.holds.flatMap((what, rank) => (what === undefined ? [] : [`rank ${rank}: ${what}`]));
  }
}

/** Drops one declaration of `what` from a rank's list (the latest, usually the only one) without allocating. */
export function settleWait(waits: WaitDescription[], what: WaitDescription): void {
  const last = waits.length - 1;
  if (last >= 0 && waits[last] === what) {
    waits.pop();
    return;
  }
  const i = waits.lastIndexOf(what);
  if (i < 0) return;
  for (let k = i; k < last; k++) waits[k] = waits[k + 1];
  waits.pop();
}

/**
 * What a rank waits for, as a deadlock report shows it: a text, or a function that writes it when
 * the report is made (a wait whose story changes meanwhile: which members a collective still lacks).
 */
export type WaitDescription = string | (() => string);

function describeWait(what: WaitDescription): string {
  if (typeof what === 'string') return what;
  // A report must be made whatever a description does.
  try {
    const text = what();
    return typeof text === 'string' && text.length > 0 ? text : `a wait whose description returned ${typeof text === 'string' ? 'an empty string' : String(text)}`;
  } catch (error) {
    return `a wait whose description threw: ${error instanceof Error ? error.message : String(error)}`;
  }
}
