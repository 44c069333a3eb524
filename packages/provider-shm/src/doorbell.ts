/** Int32 indices of a doorbell (its own cache line). */
const SEQ = 0;
const SLEEPING = 1;
export const DOORBELL_BYTES = 64;

/** ES2024's `Atomics.waitAsync` (in Node since 16), beyond this project's `lib`. */
interface AtomicsWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { readonly async: boolean; readonly value: Promise<unknown> | string };
}

/**
 * A rank's doorbell: a counter that peers bump after they publish a frame for it or free room it
 * waits for, and a flag the rank raises while it sleeps in `Atomics.waitAsync` on the counter. A
 * peer touches the counter and calls `Atomics.notify` only when the flag is up, so a rank that
 * polls costs its peers one load per publish and no system call.
 */
export class Doorbell {
  readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer, 0, DOORBELL_BYTES / 4);
  }

  static create(): Doorbell {
    return new Doorbell(new SharedArrayBuffer(DOORBELL_BYTES));
  }

  /**
   * Peer side: something changed for the owner (a frame published, room freed). Only a sleeping
   * owner hears of it: one that polls will see the change itself, and one that is about to sleep
   * raises its flag before its last look at the rings, so either it sees the change or we see the
   * flag (sequentially consistent atomics order the two).
   */
  ring(): void {
    if (Atomics.load(this.words, SLEEPING) !== 0) this.wake();
  }

  /** Move the counter and wake the owner's pending wait, asleep or not. */
  wake(): void {
    Atomics.add(this.words, SEQ, 1);
    Atomics.notify(this.words, SEQ);
  }

  // ---- owner side ----------------------------------------------------------------------

  get sequence(): number {
    return Atomics.load(this.words, SEQ);
  }

  get sleeping(): boolean {
    return Atomics.load(this.words, SLEEPING) !== 0;
  }

  set sleeping(value: boolean) {
    Atomics.store(this.words, SLEEPING, value ? 1 : 0);
  }

  /** Block this thread until the counter moves from `seen` or `ms` pass (the event loop waits too). */
  napFrom(seen: number, ms: number): void {
    Atomics.wait(this.words, SEQ, seen, ms);
  }

  /** Resolves when the counter moves from `seen` (at once, synchronously reported, if it has). */
  waitFrom(seen: number): { readonly async: boolean; readonly value: Promise<unknown> | string } {
    return (Atomics as unknown as AtomicsWaitAsync).waitAsync(this.words, SEQ, seen);
  }
}
