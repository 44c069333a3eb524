import type { RequestCore } from './request-core.js';

/** Polls between two looks at the clock. */
const POLLS_PER_CLOCK = 64;

/**
 * A blocking call's spin before it awaits (MPICH's progress engine polls before it blocks): where the
 * transport can be polled synchronously (`Device.poll`, on a provider whose `dequeuePollUs` is above
 * 0), a wait polls it in a loop until its request completes or the window ends, and only then
 * awaits. A reply from a peer on another CPU is then taken and its request completed with no turn
 * of the microtask queue or the event loop in between. Events that do not complete it (a send's
 * completion, returned credits) are handled as they come; a step that needs a continuation to run
 * (a timer, a promise) waits for the window's end, which bounds what the spin can hold up.
 */
export class PolledWait {
  readonly #windowMs: number;
  /** Waits whose request completed while they polled, and waits that polled their window out and awaited. */
  completed = 0;
  awaited = 0;

  constructor(
    readonly poll: () => void,
    windowUs: number,
  ) {
    this.#windowMs = windowUs / 1000;
  }

  /** Poll until `core` is done or the window ended. */
  until(core: RequestCore): void {
    const poll = this.poll;
    let deadline = -1;
    for (let n = 1; ; n++) {
      poll();
      if (core.done) {
        this.completed++;
        return;
      }
      if (n % POLLS_PER_CLOCK !== 0) continue;
      const now = performance.now();
      if (deadline < 0) deadline = now + this.#windowMs;
      else if (now >= deadline) {
        this.awaited++;
        return;
      }
    }
  }
}
