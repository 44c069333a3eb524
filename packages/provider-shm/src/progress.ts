import { defer } from '@dapl/core/provider-kit';
import { Doorbell } from './doorbell.js';

/** What the progress engine polls: a connected endpoint. */
export interface Pollable {
  /** Move what can move (frames in, frames out); true if anything did. */
  poll(): boolean;
}

/**
 * Empty polls made as microtasks before the engine moves to its loop. The consumer's continuations
 * (an `await` chain that posts the reply) run between these turns; the loop, a macrotask, starts
 * only once they are done, so more turns only catch a quick reply a little sooner, and each costs
 * a promise (a DAT ping-pong in one thread: 2.2 µs of CPU per message with 4, 3.9 µs with 32).
 */
const MICROTASK_TURNS = 4;
/** Longest stretch of polling in one macrotask (ms): timers and I/O wait no longer than this. */
const SLICE_MS = 1;
/** Polls between two looks at the clock in the loop. */
const POLLS_PER_CLOCK = 16;
/**
 * After this long without activity (ms) the loop naps between polls: a blocking `Atomics.wait` on the
 * doorbell, flag up, for at most `NAP_MS`, which gives the CPU to another thread (the peer, on a
 * host with fewer free CPUs than polling ranks, as MPICH nemesis yields every 1,000 polls) and
 * returns as soon as a peer rings. A peer that answers within it is seen by pure polling.
 */
const NAP_AFTER_MS = 0.02;
const NAP_MS = 0.05;

/**
 * The progress engine of one IA (MPICH nemesis' polling, bounded). After activity (a post, a frame)
 * it polls the IA's connections as a chain of microtasks, so the consumer's continuations run
 * between two polls and a reply posted from them leaves at once. When those polls come up empty it
 * polls in a tight loop inside one macrotask (no promise per poll, the clock read every few polls)
 * until a frame arrives, for at most `SLICE_MS` at a time so timers and I/O still run, and for
 * `spinUs` after the last activity (napping between polls once `NAP_AFTER_MS` have passed); then it sleeps in `Atomics.waitAsync` on the IA's doorbell and
 * an idle rank uses no CPU. Peers notify the doorbell only while it is marked sleeping.
 */
export class ShmProgress {
  readonly doorbell = Doorbell.create();
  readonly #spinMs: number;
  #endpoints: Pollable[] = [];
  /** When polling gives way to sleep (performance.now() ms), if no activity comes first. */
  #deadline = 0;
  /** Activity since the deadline was set: the loop sets it anew. */
  #renew = true;
  /** A post since the engine last looked. */
  #posted = false;
  /** A microtask turn or a loop is scheduled. */
  #running = false;
  #emptyTurns = 0;
  #waiting = false;
  #closed = false;

  constructor(spinUs: number) {
    this.#spinMs = spinUs / 1000;
  }

  add(ep: Pollable): void {
    if (!this.#endpoints.includes(ep)) this.#endpoints = [...this.#endpoints, ep];
    this.kick();
  }

  remove(ep: Pollable): void {
    this.#endpoints = this.#endpoints.filter((e) => e !== ep);
  }

  /** Something was posted or arrived: poll now, and for another `spinUs`. */
  kick(): void {
    this.#posted = true;
    if (this.#running || this.#closed) return;
    this.#running = true;
    this.#emptyTurns = 0;
    defer(this.#turn);
  }

  close(): void {
    this.#closed = true;
    this.#endpoints = [];
    // Ends our own pending wait, so nothing of this IA outlives it.
    this.doorbell.wake();
  }

  /** Every endpoint polled once; true if any moved. */
  #pollAll(): boolean {
    const eps = this.#endpoints;
    let moved = false;
    for (let i = 0; i < eps.length; i++) if (eps[i].poll()) moved = true;
    return moved;
  }

  /** Activity: the next loop starts a new `spinUs` window, and polling goes on as microtasks. */
  #active(): void {
    this.#posted = false;
    this.#renew = true;
    this.#emptyTurns = 0;
    defer(this.#turn);
  }

  readonly #turn = (): void => {
    if (this.#closed) {
      this.#running = false;
      return;
    }
    if (this.#pollAll() || this.#posted) {
      this.#active();
      return;
    }
    if (++this.#emptyTurns < MICROTASK_TURNS) {
      defer(this.#turn);
      return;
    }
    if (this.#spinMs === 0) {
      this.#running = false;
      this.#sleep();
      return;
    }
    // A macrotask runs once the microtask queue is empty: the loop delays no continuation.
    setImmediate(this.#loop);
  };

  readonly #loop = (): void => {
    if (this.#closed) {
      this.#running = false;
      return;
    }
    let now = performance.now();
    if (this.#renew) {
      this.#renew = false;
      this.#deadline = now + this.#spinMs;
    }
    const sliceEnd = Math.min(this.#deadline, now + SLICE_MS);
    const napFrom = this.#deadline - this.#spinMs + NAP_AFTER_MS;
    for (let polls = 1; ; polls++) {
      if (this.#pollAll() || this.#posted) {
        this.#active();
        return;
      }
      if (polls % POLLS_PER_CLOCK === 0) {
        now = performance.now();
        if (now >= sliceEnd) break;
        if (now >= napFrom && this.#nap()) {
          this.#active();
          return;
        }
      }
    }
    if (now < this.#deadline) {
      setImmediate(this.#loop);
      return;
    }
    this.#running = false;
    this.#sleep();
  };

  /** A short blocking wait on the doorbell (see `NAP_MS`); true if a frame turned up meanwhile. */
  #nap(): boolean {
    const bell = this.doorbell;
    bell.sleeping = true;
    const seen = bell.sequence;
    if (this.#pollAll()) {
      bell.sleeping = false;
      return true;
    }
    bell.napFrom(seen, NAP_MS);
    bell.sleeping = false;
    return this.#pollAll();
  }

  #sleep(): void {
    if (this.#closed || this.#endpoints.length === 0) return;
    const bell = this.doorbell;
    // From here on a peer that publishes notifies; a frame published before it did not: look again.
    bell.sleeping = true;
    const seen = bell.sequence;
    if (this.#pollAll()) {
      bell.sleeping = false;
      this.kick();
      return;
    }
    // A wait still pending (a kick ended the last sleep without a ring) is notified by any ring now.
    if (this.#waiting) return;
    const wait = bell.waitFrom(seen);
    if (!wait.async) {
      bell.sleeping = false;
      this.kick();
      return;
    }
    this.#waiting = true;
    void (wait.value as Promise<unknown>).then(this.#woken);
  }

  readonly #woken = (): void => {
    this.#waiting = false;
    this.doorbell.sleeping = false;
    if (!this.#closed) this.kick();
  };
}
