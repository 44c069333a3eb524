import { closeSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * A thread's scheduler accounting, ns: time on a CPU, and time runnable but waiting for one; and
 * the CPU time of the whole process so far, ms (all its threads).
 */
export interface SchedSample {
  readonly runNs: number;
  readonly waitNs: number;
  readonly processMs: number;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
const scratch = Buffer.alloc(96);

/**
 * The calling thread's own accounting, from Linux's `/proc/thread-self/schedstat` ("on-CPU ns,
 * run-queue wait ns, time slices"); undefined where the kernel does not keep it. Read synchronously
 * so that `thread-self` is this thread (an asynchronous read would run on a libuv pool thread); the
 * file is opened for each read because a descriptor outlives the worker that opened it.
 */
export function threadSchedSample(): SchedSample | undefined {
  let fd: number;
  try {
    fd = openSync(SCHEDSTAT, 'r');
  } catch {
    return undefined;
  }
  try {
    const length = readSync(fd, scratch, 0, scratch.length, 0);
    const [run, wait] = scratch.toString('latin1', 0, length).split(' ', 2).map(Number);
    if (!Number.isFinite(run) || !Number.isFinite(wait)) return undefined;
    const usage = process.cpuUsage();
    return { runNs: run, waitNs: wait, processMs: (usage.user + usage.system) / 1000 };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A stretch of polling in which the thread ran for less than this share of the time it was
 * runnable pauses polling. A third, not a half: with two other busy processes on this 2-CPU host
 * (a half each), two polling ranks still answered a ping-pong in 10-12 us, against 34-36 us when
 * they slept; with ten (a fifth each) polling lost to sleeping (35-42 against 26-28 us).
 */
const MIN_CPU_SHARE = 1 / 3;
/** How long polling pauses after such a stretch before it is tried again (ms). */
const BACKOFF_MS = 1_000;
/** How often a thread that polls is judged (ms of wall-clock time). */
const JUDGE_MS = 20;
/**
 * Consecutive stretches short of their share before polling pauses: one alone is as often a burst of
 * the process's own background work (V8 compiling what a new phase of the program runs, a
 * collection's helper threads) as another job wanting the CPU, and a pause costs every message a
 * wake-up for a second.
 */
const SHORT_STRETCHES = 3;
/**
 * A short stretch in which the process as a whole used at least this share of all the host's CPUs
 * lost its time to the process's own threads (another rank, V8's compiler and collector helpers):
 * the CPUs are the job's, and polling goes on.
 */
const OWN_SHARE = 0.75;
/** Runnable time a stretch needs before it is judged (ms): less says too little either way. */
const MIN_RUNNABLE_MS = 5;
/** A mark older than this (ms) is history, not the present stretch: the next look starts afresh. */
const STALE_MS = 200;

/**
 * `shm.spin=auto`'s judgement of whether polling pays, made while the thread polls, from what the
 * thread itself got: a rank that polls gives up its CPU only when the scheduler takes it, so the
 * time it spends runnable but off its CPU is time others wanted that CPU for — on a host busier
 * than its CPUs, often the peer whose reply it polls for. When, over a stretch of polling, the
 * thread ran for less than a third of the time it was runnable while the process as a whole got
 * less than `OWN_SHARE` of the host's CPUs (so other jobs had them), three such stretches in a
 * row, polling pauses for `BACKOFF_MS` (the rank sleeps when idle, paying a wake-up per message)
 * and is then tried again. As the tcp provider's busy poller, but per thread: the ranks are
 * threads of one process, whose CPU time alone says nothing of any one of them. The host's load
 * average cannot judge it: a job's own polling ranks lift it to the CPU count by themselves.
 */
export class SpinGovernor {
  #mark: (SchedSample & { readonly at: number }) | undefined;
  /** Short stretches whose time went to the process's own threads (for tests and tools). */
  ownContention = 0;
  #pausedUntil = -Infinity;
  /** Times polling was paused because the thread got less than a third of the CPU time it wanted while other jobs had the CPUs (for tests and tools). */
  backoffs = 0;
  /** Stretches judged (for tests and tools). */
  judgements = 0;
  /** Stretches in a row in which the thread ran for less than its share. */
  #short = 0;

  constructor(
    private readonly sample: () => SchedSample | undefined = threadSchedSample,
    private readonly cpus: number = availableParallelism(),
  ) {}

  /** Whether this thread's accounting can be read here (else the governor always allows). */
  static available(sample: () => SchedSample | undefined = threadSchedSample): boolean {
    return sample() !== undefined;
  }

  /** Whether a thread that is polling at `now` (performance.now() ms) may go on polling. */
  allows(now: number): boolean {
    if (now < this.#pausedUntil) return false;
    const mark = this.#mark;
    if (mark === undefined || now - mark.at >= JUDGE_MS) this.#judge(now, mark);
    return now >= this.#pausedUntil;
  }

  #judge(now: number, mark: (SchedSample & { readonly at: number }) | undefined): void {
    const sample = this.sample();
    if (sample === undefined) return;
    if (mark === undefined || now - mark.at > STALE_MS) {
      this.#mark = { at: now, ...sample };
      this.#short = 0;
      return;
    }
    const ranMs = (sample.runNs - mark.runNs) / 1e6;
    const waitedMs = (sample.waitNs - mark.waitNs) / 1e6;
    // A thread that napped or slept through most of the stretch is judged once it has run enough.
    if (ranMs + waitedMs < MIN_RUNNABLE_MS) return;
    this.#mark = { at: now, ...sample };
    this.judgements++;
    if (ranMs >= (ranMs + waitedMs) * MIN_CPU_SHARE) {
      this.#short = 0;
      return;
    }
    if (sample.processMs - mark.processMs >= (now - mark.at) * this.cpus * OWN_SHARE) {
      this.ownContention++;
      this.#short = 0;
      return;
    }
    if (++this.#short < SHORT_STRETCHES) return;
    this.#short = 0;
    this.#pausedUntil = now + BACKOFF_MS;
    this.#mark = undefined;
    this.backoffs++;
  }
}

let threadGovernor: SpinGovernor | undefined;

/** This thread's governor, shared by its IAs (module state is per thread: each worker has its own). */
export function threadSpinGovernor(): SpinGovernor {
  return (threadGovernor ??= new SpinGovernor());
}
