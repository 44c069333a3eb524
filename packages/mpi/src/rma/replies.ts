/**
 * What an origin waits for from its targets' synchronisation answers: lock grants, unlock and
 * flush confirmations (each with the number of operations the target refused), and PSCW posts.
 * A target answers one origin's requests of one kind in order, so each is a queue per target.
 */
export class SyncReplies {
  readonly #grants: (() => void)[][];
  readonly #unlocked: ((refused: number) => void)[][];
  readonly #flushed: ((refused: number) => void)[][];
  /** Posts that arrived and no start has consumed yet (a post may come before its start). */
  readonly #posts: Int32Array;
  readonly #postWaiters: (() => void)[][];

  constructor(size: number) {
    const queues = <T>(): T[][] => Array.from({ length: size }, () => []);
    this.#grants = queues();
    this.#unlocked = queues();
    this.#flushed = queues();
    this.#posts = new Int32Array(size);
    this.#postWaiters = queues();
  }

  granted(target: number): Promise<void> {
    return new Promise((resolve) => this.#grants[target].push(resolve));
  }

  unlocked(target: number): Promise<number> {
    return new Promise((resolve) => this.#unlocked[target].push(resolve));
  }

  flushed(target: number): Promise<number> {
    return new Promise((resolve) => this.#flushed[target].push(resolve));
  }

  /** Settles once `target` has posted (consuming that post). */
  posted(target: number): Promise<void> {
    if (this.#posts[target] > 0) {
      this.#posts[target]--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#postWaiters[target].push(resolve));
  }

  onGrant(target: number): void {
    this.#grants[target].shift()?.();
  }

  onUnlocked(target: number, refused: number): void {
    this.#unlocked[target].shift()?.(refused);
  }

  onFlushed(target: number, refused: number): void {
    this.#flushed[target].shift()?.(refused);
  }

  onPost(target: number): void {
    const waiter = this.#postWaiters[target].shift();
    if (waiter !== undefined) waiter();
    else this.#posts[target]++;
  }
}
