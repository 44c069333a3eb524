/**
 * MPICH-style busy polling for an event loop. These machines' vCPUs halt as soon as they idle, and
 * every sleep-and-wake costs 30–60 µs (notes/baselines.md), more than a loopback round trip itself.
 * After input arrives, and after requests are written (a reply may follow: a window begun at the
 * last input can pass during a large payload's write), `kick()` keeps the loop turning (one
 * `setImmediate` after another, so libuv polls its sockets with a zero timeout) until `windowUs`
 * microseconds have passed without either: a reply that comes back within the window is read
 * without a wake-up. The price is a busy CPU for
 * up to that long after each message. A window of 0 never polls.
 */
export class BusyPoll {
  #deadline = 0;
  #spinning = false;
  #closed = false;
  /** Loop turns spent polling (for tests and tools). */
  turns = 0;

  constructor(
    readonly windowUs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get active(): boolean {
    return this.#spinning;
  }

  /** Input arrived or requests were written: poll for another `windowUs` from now. */
  kick(): void {
    if (this.windowUs <= 0 || this.#closed) return;
    this.#deadline = this.now() + this.windowUs / 1000;
    if (this.#spinning) return;
    this.#spinning = true;
    setImmediate(this.#turn);
  }

  close(): void {
    this.#closed = true;
    this.#deadline = 0;
  }

  readonly #turn = (): void => {
    if (!this.#closed && this.now() < this.#deadline) {
      this.turns++;
      setImmediate(this.#turn);
      return;
    }
    this.#spinning = false;
  };
}
