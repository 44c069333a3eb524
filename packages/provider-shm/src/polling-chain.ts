import { defer } from '@dapl/core/provider-kit';

/** Longest stretch of polling (ms) before the chain gives the event loop a turn: timers and I/O wait no longer. */
const SLICE_MS = 1;
/** Turns between two looks at the clock. */
const TURNS_PER_CLOCK = 16;

/** What the chain drives: a progress engine, one poll of its rings per turn. */
export interface ChainMember {
  /**
   * Poll once; `now` is the clock (performance.now() ms) every few turns, else -1. `alone` when no
   * other engine shares the chain (a blocking nap then delays nobody). False: leave the chain.
   */
  step(now: number, alone: boolean): boolean;
}

/**
 * The thread's one chain of microtask turns, polling every engine that is active (one per IA). A
 * microtask chain lets the consumer's continuations run between two polls and takes a frame that
 * arrives while the consumer awaits it with no trip through the event loop. There is one per
 * thread because two chains would keep the microtask queue busy for each other, so the
 * `setImmediate` by which either gives the event loop its turn would not run until both did,
 * and one engine would stop polling meanwhile.
 */
class PollingChain {
  #members: ChainMember[] = [];
  /** A turn (or the event loop's turn) is scheduled. */
  #scheduled = false;
  #turns = 0;
  /** When this slice ends (performance.now() ms); -1 until the clock is next read. */
  #sliceEnd = -1;

  join(member: ChainMember): void {
    this.#members.push(member);
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#sliceEnd = -1;
    defer(this.#turn);
  }

  readonly #turn = (): void => {
    let now = -1;
    if (++this.#turns >= TURNS_PER_CLOCK) {
      this.#turns = 0;
      now = performance.now();
      if (this.#sliceEnd < 0) this.#sliceEnd = now + SLICE_MS;
    }
    // Members may join while others step (a kick from a completion): they are stepped in this turn too.
    const members = this.#members;
    let kept = 0;
    for (let i = 0; i < members.length; i++) {
      const member = members[i];
      if (member.step(now, members.length === 1)) members[kept++] = member;
    }
    if (kept !== members.length) members.length = kept;
    if (kept === 0) {
      this.#scheduled = false;
      return;
    }
    if (now >= 0 && now >= this.#sliceEnd) setImmediate(this.#slice);
    else defer(this.#turn);
  };

  /** The event loop had its turn: a new slice. */
  readonly #slice = (): void => {
    this.#sliceEnd = -1;
    this.#turn();
  };
}

/** The chain of this thread (module state is per thread: each worker has its own module graph). */
export const pollingChain = new PollingChain();
