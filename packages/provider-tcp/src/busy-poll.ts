/**
 * MPICH-style busy polling for an event loop. These machines' vCPUs halt as soon as they idle, and
 * every sleep-and-wake costs 30–60 µs (notes/baselines.md), more than a loopback round trip itself.
 * After input arrives, and after requests are written (a reply may follow: a window begun at the
 * last input can pass during a large payload's write), `kick()` keeps the loop turning (one
 * `setImmediate` after another, so libuv polls its sockets with a zero timeout) until `windowUs`
 * microseconds have passed without either: a reply that comes back within the window is read
 * without a wake-up. The price is a busy CPU for up to that long after each message. A window of 0
 * never polls.
 *
 * That price is worth paying only with a CPU to spare. A spinning process never sleeps, so the time
 * it spends off its CPU while it spins is time the scheduler gave to others that wanted it — on a
 * host busy with other work, often the very peer whose reply it waits for (two ranks spinning among
 * a dozen runnable processes on 2 vCPUs halved their loopback throughput). So the poller measures
 * itself: when, over a stretch of spinning, the process ran for less than half of the wall-clock
 * time, it stops polling for `BACKOFF_MS` and then tries again, as Open MPI yields when
 * oversubscribed but judged by the host's present load rather than the job's own size.
 */
export class BusyPoll {
  #deadline = 0;
  #spinning = false;
  #closed = false;
  /** Wall-clock and CPU time (ms) at the start of the stretch of spinning being judged. */
  #stretchStart = 0;
  #stretchCpu = 0;
  /** No polling before this wall-clock time (ms): the last stretch was mostly spent off the CPU. */
  #pausedUntil = 0;
  /** Times input or a write asked for polling, whether or not it was paused (for tests and tools). */
  kicks = 0;
  /** Loop turns spent polling (for tests and tools). */
  turns = 0;
  /** Times polling was paused because the process got less than half a CPU while it spun (for tests and tools). */
  backoffs = 0;

  constructor(
    readonly windowUs: number,
    private readonly now: () => number = () => performance.now(),
    /** CPU time this process has used, in ms (user and system). */
    private readonly cpuNow: () => number = processCpuMs,
  ) {}

  get active(): boolean {
    return this.#spinning;
  }

  /** Input arrived or requests were written: poll for another `windowUs` from now. */
  kick(): void {
    if (this.windowUs <= 0 || this.#closed) return;
    this.kicks++;
    const now = this.now();
    if (now < this.#pausedUntil) return;
    this.#deadline = now + this.windowUs / 1000;
    if (this.#spinning) return;
    this.#spinning = true;
    this.#stretchStart = now;
    this.#stretchCpu = this.cpuNow();
    setImmediate(this.#turn);
  }

  close(): void {
    this.#closed = true;
    this.#deadline = 0;
  }

  readonly #turn = (): void => {
    const now = this.now();
    if (!this.#closed && now < this.#deadline) {
      this.turns++;
      // A long stream of input keeps one stretch going: judge it every JUDGE_MS as it goes.
      if (now - this.#stretchStart < JUDGE_MS || this.#judge(now)) {
        setImmediate(this.#turn);
        return;
      }
    } else if (!this.#closed && now - this.#stretchStart >= this.windowUs / 1000) {
      this.#judge(now);
    }
    this.#spinning = false;
  };

  /** Whether to go on polling after the stretch that ends at `now`; a new stretch starts. */
  #judge(now: number): boolean {
    const cpu = this.cpuNow();
    const ran = cpu - this.#stretchCpu;
    const wall = now - this.#stretchStart;
    this.#stretchStart = now;
    this.#stretchCpu = cpu;
    if (ran >= wall * MIN_CPU_SHARE) return true;
    this.#pausedUntil = now + BACKOFF_MS;
    this.#deadline = 0;
    this.backoffs++;
    return false;
  }
}

/** A stretch of spinning in which the process ran for less than this share of the wall-clock time pauses polling. */
const MIN_CPU_SHARE = 0.5;
/** How long polling pauses after such a stretch before it tries again (ms). */
const BACKOFF_MS = 1_000;
/** How long a stretch of spinning goes before it is judged, if input keeps it going (ms). */
const JUDGE_MS = 10;

function processCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
