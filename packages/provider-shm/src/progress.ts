import { defer } from '@dapl/core/provider-kit';
import { Doorbell } from './doorbell.js';

/** What the progress engine polls: a connected endpoint. */
export interface Pollable {
  /** Move what can move (frames in, frames out); true if anything did. */
  poll(): boolean;
}

/**
 * The progress engine of one IA (MPICH's nemesis polling, bounded): while anything happens it
 * polls the IA's connections as a chain of microtasks, so a reply that comes back within `spinUs`
 * is seen without a thread wake-up and the consumer's continuations run between two polls; after
 * `spinUs` without activity it sleeps in `Atomics.waitAsync` on the IA's doorbell, so the event
 * loop goes on serving timers and messages and an idle rank uses no CPU. Peers ring the doorbell
 * after they publish a frame for it or free room it waits for.
 */
export class ShmProgress {
  readonly doorbell = Doorbell.create();
  readonly #spinMs: number;
  #endpoints: Pollable[] = [];
  #deadline = 0;
  #running = false;
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
    this.#deadline = performance.now() + this.#spinMs;
    if (this.#running || this.#closed) return;
    this.#running = true;
    defer(this.#turn);
  }

  close(): void {
    this.#closed = true;
    this.#endpoints = [];
    // Ends our own pending wait, so nothing of this IA outlives it.
    this.doorbell.ring();
  }

  /** Every endpoint polled once; true if any moved. */
  #pollAll(): boolean {
    const eps = this.#endpoints;
    let moved = false;
    for (let i = 0; i < eps.length; i++) if (eps[i].poll()) moved = true;
    return moved;
  }

  readonly #turn = (): void => {
    if (this.#closed) {
      this.#running = false;
      return;
    }
    const now = performance.now();
    if (this.#pollAll()) this.#deadline = now + this.#spinMs;
    if (now < this.#deadline) {
      defer(this.#turn);
      return;
    }
    this.#running = false;
    this.#sleep();
  };

  #sleep(): void {
    if (this.#closed || this.#endpoints.length === 0) return;
    if (this.#waiting) {
      // A wait is pending with the flag up: any ring from now on notifies it.
      if (this.#pollAll()) this.kick();
      return;
    }
    const bell = this.doorbell;
    bell.sleeping = true;
    const seen = bell.sequence;
    // A frame published before the flag went up rang no notify: look once more.
    if (this.#pollAll()) {
      bell.sleeping = false;
      this.kick();
      return;
    }
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
