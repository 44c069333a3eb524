import { Doorbell } from './doorbell.js';
import { pollingChain, type ChainMember } from './polling-chain.js';
import type { SpinGovernor } from './spin-governor.js';

/** What the progress engine polls: a connected endpoint, or a consumer's poller (the 'peer-memory' extension). */
export interface Pollable {
  /** Move what can move (frames in, frames out, a consumer's queues in peer memory); true if anything did. */
  poll(): boolean;
}

/**
 * Empty polls before an engine that does not spin (`spinUs` 0) goes to sleep: the consumer's
 * continuations run between them, so a reply posted from them is seen at once.
 */
const MICROTASK_TURNS = 4;
/**
 * After this long without activity (ms) the engine naps between polls: a blocking `Atomics.wait` on
 * the doorbell, flag up, for at most `NAP_MS`, which gives the CPU to another thread (the peer, on a
 * host with fewer free CPUs than polling ranks, as MPICH nemesis yields every 1,000 polls) and
 * returns as soon as a peer rings. A peer that answers within it is seen by pure polling. Only an
 * engine alone in its thread's polling chain naps: a nap would stop the others' polls too.
 * Longer than a napping thread takes to wake when rung (30-100 µs on this host): else a stall of
 * one rank (a collection) starts naps that feed each other, each rank waiting out the other's
 * wake-up and napping in turn (at 20 µs, a quarter of an 8 B ping-pong's time went to 50-100 µs
 * round trips so made).
 */
const NAP_AFTER_MS = 0.2;
const NAP_MS = 0.05;

/**
 * The progress engine of one IA (MPICH nemesis' polling, bounded). After activity (a post, a frame)
 * it polls the IA's connections once per turn of the thread's polling chain, a chain of microtasks
 * (polling-chain.ts): the consumer's continuations run between two polls, so a reply posted from
 * them leaves at once, and a frame that arrives while the consumer awaits it is taken, and its
 * completion delivered, without a trip through the event loop (which costs more than the message).
 * The chain gives the event loop a turn every millisecond, so timers and I/O still run. The engine
 * polls for `spinUs` after the last activity (napping between polls once `NAP_AFTER_MS` have
 * passed), then sleeps in `Atomics.waitAsync` on the IA's doorbell and an idle rank uses no CPU.
 * Peers notify the doorbell only while it is marked sleeping. The consumer's pollers (the
 * 'peer-memory' extension) are polled with the endpoints, in every poll, nap and last look before a
 * sleep, so a peer's notify that finds the doorbell sleeping wakes an engine that runs them. With a
 * governor (`spin=auto`), the engine polls only while the governor allows it, and otherwise sleeps
 * as one that does not spin.
 */
export class ShmProgress implements ChainMember {
  readonly doorbell = Doorbell.create();
  readonly #spinMs: number;
  readonly #governor: SpinGovernor | undefined;
  /** The polling window in force: `#spinMs`, or 0 while the governor says polling does not pay. */
  #windowMs: number;
  /** Replaced, never changed in place: a poll that adds or removes one goes on over the list it started with. */
  #pollables: Pollable[] = [];
  /** When polling gives way to sleep (performance.now() ms), if no activity comes first. */
  #deadline = 0;
  /** Activity since the deadline was set: the next look at the clock sets it anew. */
  #renew = true;
  /** A post since the engine last looked. */
  #posted = false;
  /** In the polling chain. */
  #running = false;
  #emptyTurns = 0;
  #waiting = false;
  #closed = false;
  /** Empty polls from `pollNow` in a row, and when the clock first saw them (-1: not yet). */
  #idlePolls = 0;
  #idleSince = -1;
  /** Inside `#pollAll`: a nested poll (a completion's consumer dequeuing) waits for the outer one. */
  #polling = false;
  /** A consumer polled (`pollNow`) since the chain's last step: that step need not poll too. */
  #consumerPolled = false;

  constructor(spinUs: number, governor?: SpinGovernor) {
    this.#spinMs = spinUs / 1000;
    this.#windowMs = this.#spinMs;
    this.#governor = spinUs > 0 ? governor : undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  add(pollable: Pollable): void {
    if (!this.#pollables.includes(pollable)) this.#pollables = [...this.#pollables, pollable];
    this.kick();
  }

  remove(pollable: Pollable): void {
    this.#pollables = this.#pollables.filter((p) => p !== pollable);
  }

  /** Something was posted or arrived: poll now, and for another `spinUs`. */
  kick(): void {
    this.#posted = true;
    this.#restartIdle();
    if (this.#running || this.#closed) return;
    this.#running = true;
    this.#emptyTurns = 0;
    if (this.#governor !== undefined) this.#windowMs = this.#governor.allows(performance.now()) ? this.#spinMs : 0;
    pollingChain.join(this);
  }

  close(): void {
    this.#closed = true;
    this.#pollables = [];
    // Ends our own pending wait, so nothing of this IA outlives it.
    this.doorbell.wake();
  }

  /**
   * One poll outside the chain, for a consumer spinning on `evd.dequeue()` (the event loop is not
   * turning meanwhile, so the chain is not either); what moved counts as activity for the chain.
   */
  pollNow(): boolean {
    // An engine that does not spin (dequeuePollUs 0): dequeue only reads the queue.
    if (this.#spinMs === 0 || this.#closed || this.#polling) return false;
    this.#consumerPolled = true;
    const moved = this.#pollAll();
    if (moved) {
      // Polled, so awake: peers need not ring (a wait still pending is woken by the ring after the flag goes up again).
      // Stored only when up: peers load the flag for every frame, and a store would take its cache line from them each time.
      if (this.doorbell.sleeping) this.doorbell.sleeping = false;
      this.kick();
      return true;
    }
    // A consumer that has found nothing for NAP_AFTER_MS naps, as the engine does: on a host with
    // fewer free CPUs than spinning ranks, the CPU goes to the peer it waits for. While the governor
    // says polling does not pay (spin=auto), it naps at once.
    if ((++this.#idlePolls & 63) !== 0) return false;
    const now = performance.now();
    if (this.#idleSince < 0) this.#idleSince = now;
    const paused = this.#governor !== undefined && !this.#governor.allows(now);
    if ((paused || now - this.#idleSince >= NAP_AFTER_MS) && this.#nap()) {
      this.kick();
      return true;
    }
    return false;
  }

  /** Activity, however it came (a post, a frame the chain took): a consumer's idle count starts anew. */
  #restartIdle(): void {
    this.#idlePolls = 0;
    this.#idleSince = -1;
  }

  /** Every endpoint and poller polled once; true if any moved. */
  #pollAll(): boolean {
    const pollables = this.#pollables;
    let moved = false;
    this.#polling = true;
    try {
      for (let i = 0; i < pollables.length; i++) if (pollables[i].poll()) moved = true;
    } finally {
      this.#polling = false;
    }
    return moved;
  }

  step(now: number, alone: boolean): boolean {
    if (this.#closed) {
      this.#running = false;
      return false;
    }
    if (now >= 0 && this.#governor !== undefined) this.#windowMs = this.#governor.allows(now) ? this.#spinMs : 0;
    const windowMs = this.#windowMs;
    // A consumer spinning on dequeue polls the rings between our turns (a polled MPI wait polls
    // them again and again): one more poll here would find nothing, at the cost of a poll per message.
    const consumerPolled = this.#consumerPolled;
    this.#consumerPolled = false;
    if ((!consumerPolled && this.#pollAll()) || this.#posted) {
      // Activity: a new polling window from the next look at the clock, and a consumer's idle count anew.
      this.#posted = false;
      this.#restartIdle();
      this.#renew = true;
      this.#emptyTurns = 0;
    } else if (windowMs === 0 && ++this.#emptyTurns >= MICROTASK_TURNS) {
      return this.#stop();
    }
    if (now < 0 || windowMs === 0) return true;
    if (this.#renew) {
      this.#renew = false;
      this.#deadline = now + windowMs;
    }
    if (now >= this.#deadline) return this.#stop();
    if (alone && now >= this.#deadline - windowMs + NAP_AFTER_MS && this.#nap()) this.#renew = true;
    return true;
  }

  /** Out of the chain, to sleep (or, if a frame turned up meanwhile, back in it). */
  #stop(): false {
    this.#running = false;
    this.#sleep();
    return false;
  }

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
    // Down while the engine runs; up again if it sleeps (a consumer's nap): its pending wait must still hear a ring.
    bell.sleeping = !this.#running;
    return this.#pollAll();
  }

  #sleep(): void {
    // Nothing to poll: the next endpoint or poller kicks. A poller counts: a server's endpoint is
    // polled only once the client confirms, and the client's first notify may come before that.
    if (this.#closed || this.#pollables.length === 0) return;
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
