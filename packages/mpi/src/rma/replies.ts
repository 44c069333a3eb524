import type { MpiError } from '../api/errors.js';

interface Waiter<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: MpiError) => void;
}

/**
 * What an origin waits for from its targets' synchronisation answers: lock grants, unlock and
 * flush confirmations (each with the number of operations the target refused), and PSCW posts.
 * A target answers one origin's requests of one kind in order, so each is a queue per target. A
 * lost peer fails what waits on it, and every later wait on it at once.
 */
export class SyncReplies {
  readonly #grants: Waiter<void>[][];
  readonly #unlocked: Waiter<number>[][];
  readonly #flushed: Waiter<number>[][];
  /** Posts that arrived and no start has consumed yet (a post may come before its start). */
  readonly #posts: Int32Array;
  readonly #postWaiters: Waiter<void>[][];
  readonly #lost: (MpiError | undefined)[];

  constructor(size: number) {
    const queues = <T>(): T[][] => Array.from({ length: size }, () => []);
    this.#grants = queues();
    this.#unlocked = queues();
    this.#flushed = queues();
    this.#posts = new Int32Array(size);
    this.#postWaiters = queues();
    this.#lost = new Array<MpiError | undefined>(size).fill(undefined);
  }

  granted(target: number): Promise<void> {
    return this.#wait(this.#grants, target);
  }

  unlocked(target: number): Promise<number> {
    return this.#wait(this.#unlocked, target);
  }

  flushed(target: number): Promise<number> {
    return this.#wait(this.#flushed, target);
  }

  /** Settles once `target` has posted (consuming that post). */
  posted(target: number): Promise<void> {
    if (this.#posts[target] > 0) {
      this.#posts[target]--;
      return Promise.resolve();
    }
    return this.#wait(this.#postWaiters, target);
  }

  #wait<T>(queues: Waiter<T>[][], target: number): Promise<T> {
    const lost = this.#lost[target];
    if (lost !== undefined) return Promise.reject(lost);
    return new Promise((resolve, reject) => queues[target].push({ resolve, reject }));
  }

  onGrant(target: number): void {
    this.#grants[target].shift()?.resolve();
  }

  onUnlocked(target: number, refused: number): void {
    this.#unlocked[target].shift()?.resolve(refused);
  }

  onFlushed(target: number, refused: number): void {
    this.#flushed[target].shift()?.resolve(refused);
  }

  onPost(target: number): void {
    const waiter = this.#postWaiters[target].shift();
    if (waiter !== undefined) waiter.resolve();
    else this.#posts[target]++;
  }

  /** `peer` was lost: what waits on it fails with `error`, now and from now on. */
  lostPeer(peer: number, error: MpiError): void {
    this.#lost[peer] ??= error;
    for (const queues of [this.#grants, this.#unlocked, this.#flushed, this.#postWaiters] as Waiter<unknown>[][][]) {
      const waiting = queues[peer];
      queues[peer] = [];
      for (const w of waiting) w.reject(error);
    }
  }
}
