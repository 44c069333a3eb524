import type { Clock } from '@dapl/core';
import { LOCK_STEP_NS } from './costs.js';

/** How `Win.lock` locks a target's window: alone (`exclusive`) or beside other shared locks. */
export type LockMode = 'exclusive' | 'shared';

interface Waiting {
  readonly origin: number;
  readonly mode: LockMode;
}

/**
 * A window's lock at its target (MPI_Win_lock's other side): one exclusive holder or any number of
 * shared ones; requests wait in arrival order, so a writer is not starved by a stream of readers.
 * `grant` tells the origin (a message, or a local call for the target itself).
 */
export class LockManager {
  #exclusive = false;
  #shared = 0;
  readonly #queue: Waiting[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly grant: (origin: number, mode: LockMode) => void,
  ) {}

  request(origin: number, mode: LockMode): void {
    this.clock.charge(LOCK_STEP_NS);
    this.#queue.push({ origin, mode });
    this.#admit();
  }

  release(mode: LockMode): void {
    this.clock.charge(LOCK_STEP_NS);
    if (mode === 'exclusive') this.#exclusive = false;
    else this.#shared--;
    this.#admit();
  }

  /** Grant from the head of the queue while its request is compatible with the holders. */
  #admit(): void {
    while (this.#queue.length > 0) {
      const head = this.#queue[0];
      if (this.#exclusive || (head.mode === 'exclusive' && this.#shared > 0)) return;
      this.#queue.shift();
      if (head.mode === 'exclusive') this.#exclusive = true;
      else this.#shared++;
      this.grant(head.origin, head.mode);
    }
  }
}
