/**
 * The waits a rank of a real job has declared (`Runtime.declareWait`): what each is ("MPI recv from
 * rank 0 tag 9 (context 0)") and since when. The simulator's deadlock report names the same waits;
 * here they answer the launcher's question "what is each rank blocked in" when a job is stopped
 * (`dapl run --timeout`, SIGINT, SIGTERM), and they hold the process: while one is pending, a ref'd
 * handle keeps the event loop alive, so a library that unrefs its own sockets (MPI does, to finalize
 * at exit) still waits for the peers it declared a wait on.
 */
export interface DeclaredWait {
  readonly what: string;
  /** `performance.now()` when it was declared. */
  readonly sinceMs: number;
}

/** One rank's declared waits as the launcher prints them. */
export interface WaitReport {
  readonly what: string;
  /** How long it has waited, in seconds. */
  readonly seconds: number;
}

/** The declared waits of one process (or of the ranks it hosts), and the hold they keep on it. */
export class DeclaredWaits {
  readonly #pending = new Set<DeclaredWait>();
  #hold: NodeJS.Timeout | undefined;

  /** `holdsProcess` false: only list the waits (ranks in one process, whose launcher holds it). */
  constructor(private readonly holdsProcess = true) {}

  /** Holds taken with `hold()` and not yet released (waits that are not listed). */
  #holds = 0;

  get size(): number {
    return this.#pending.size;
  }

  /**
   * Hold the process without listing a wait (an upper library's internal wait, e.g. on a request
   * someone awaits); pair with `release()`.
   */
  hold(): void {
    if (++this.#holds === 1 && this.#pending.size === 0) this.#holdProcess(true);
  }

  /** Give back a hold taken with `hold()`. */
  release(): void {
    if (this.#holds === 0) return;
    if (--this.#holds === 0 && this.#pending.size === 0) this.#holdProcess(false);
  }

  /** Lists `promise` as `what` until it settles, the process held meanwhile; returns `promise` itself. */
  declare<T>(what: string, promise: Promise<T>): Promise<T> {
    const wait: DeclaredWait = { what, sinceMs: performance.now() };
    this.#pending.add(wait);
    if (this.#pending.size === 1 && this.#holds === 0) this.#holdProcess(true);
    const settle = (): void => {
      this.#pending.delete(wait);
      if (this.#pending.size === 0 && this.#holds === 0) this.#holdProcess(false);
    };
    // A listener beside the caller's, not a link in its chain: the caller's promise settles with no
    // extra turn, and its rejection stays the caller's to handle.
    promise.then(settle, settle);
    return promise;
  }

  /** The pending waits, oldest first, with how long each has waited. */
  report(nowMs = performance.now()): WaitReport[] {
    return [...this.#pending].map((w) => ({ what: w.what, seconds: Math.max(0, (nowMs - w.sinceMs) / 1000) }));
  }

  /** One interval timer for the registry's life, ref'd only while a wait is pending (toggling is a flag in libuv). */
  #holdProcess(hold: boolean): void {
    if (!this.holdsProcess) return;
    if (hold) (this.#hold ??= setInterval(() => undefined, 2 ** 30)).ref();
    else this.#hold?.unref();
  }
}

/** The process's registry: a process is one rank of a real job (in-process ranks use their simulator's or local job's). */
export const processWaits = new DeclaredWaits();

/** A report as one PMI value: no whitespace (percent-encoded JSON). */
export function encodeWaitReport(report: readonly WaitReport[]): string {
  return encodeURIComponent(JSON.stringify(report.map((w) => [w.what, Math.round(w.seconds * 10) / 10])));
}

/** The inverse of `encodeWaitReport`; undefined for anything malformed (a rank's word is not trusted). */
export function decodeWaitReport(text: string): WaitReport[] | undefined {
  try {
    const rows: unknown = JSON.parse(decodeURIComponent(text));
    if (!Array.isArray(rows)) return undefined;
    const report: WaitReport[] = [];
    for (const row of rows) {
      if (!Array.isArray(row) || typeof row[0] !== 'string' || typeof row[1] !== 'number') return undefined;
      report.push({ what: row[0].slice(0, 300), seconds: row[1] });
    }
    return report;
  } catch {
    return undefined;
  }
}
