import type { SimKernel } from '../../sim/sim-kernel.js';
import type { SimRunResult } from '../../sim/sim-run.js';
import type { LocalWaitHook } from '../../runtime/local-job.js';
import type { Clock } from '../../runtime/runtime.js';
import type { RunRanks } from './in-process-job.js';

/** What ranks read while the program loads: its modules are real I/O the kernel cannot see. */
export const LOADING_THE_PROGRAM = 'loading the program';

/**
 * How long the ranks may hold virtual time still with none of them done loading: Node's loader
 * works on every rank's import at once through its hooks thread, so the first rank may be done
 * only when most of the loading is — 60 s for small jobs, 100 ms a rank for large ones (4,096
 * ranks took 280 s of wall time on a loaded 2-vCPU host).
 */
export function loadingTimeoutMs(ranks: number): number {
  return Math.min(2 ** 31 - 1, Math.max(60_000, ranks * 100));
}

/**
 * How many ranks load their program at once. Node's import of a rank's own instance of the program
 * walks the whole module graph it imports (promises per module); with every rank of a
 * 1,024-rank job importing at once, that garbage took V8's heap to 700 MB before a collection, most
 * of the job's peak memory. A rank that has loaded (its first wait) lets the next one start; virtual
 * time is the same, since it stands still until every rank has loaded.
 */
export const LOADING_WINDOW = 64;

/** How an in-process job runs its ranks under a simulated provider's kernel, in virtual time. */
export interface KernelDriver {
  /** Rank r's `runtime.clock`: the kernel's clock of rank r (what the provider's IAs recognise). */
  readonly clock: (rank: number) => Clock;
  /** The ranks as tasks of `kernel.run`, each held until it first waits (its program has loaded). */
  readonly runRanks: RunRanks;
  /** Fence and barrier waits declared to the kernel, for deadlock reports. */
  readonly waitHook: LocalWaitHook;
  /** Settles when the kernel's run has ended: its result, or undefined when it failed (a deadlock) or never started. */
  readonly finished: Promise<SimRunResult | undefined>;
}

export function kernelDriver(kernel: SimKernel): KernelDriver {
  let ended: (result: SimRunResult | undefined) => void = () => undefined;
  const finished = new Promise<SimRunResult | undefined>((resolve) => (ended = resolve));
  return {
    clock: (rank) => kernel.clock(rank),
    runRanks: (mains, stop) => {
      let run: Promise<SimRunResult>;
      try {
        run = kernel.run(mains, { signal: stop, startHeld: LOADING_THE_PROGRAM, startWindow: LOADING_WINDOW, holdTimeoutMs: loadingTimeoutMs(mains.length) });
      } catch (error) {
        ended(undefined); // e.g. a kernel that has run before: `finished` must settle all the same
        throw error;
      }
      run.then(ended, () => ended(undefined));
      return run.then(() => undefined);
    },
    waitHook: (rank, what, promise) => kernel.blockedOn(rank, what, promise),
    finished,
  };
}

/**
 * The `DAPL_SIM_REPORT=1` line for stderr: the virtual end time (the latest of the kernel's time and
 * the ranks' end times, which include CPU work charged past it) and the kernel's speed.
 */
export function simReportLine(providerKey: string, size: number, result: SimRunResult | undefined, kernel: SimKernel): string {
  const stats = result?.stats ?? kernel.stats;
  const rankEnds = (result?.rankEndNs ?? []).filter((ns) => Number.isFinite(ns));
  const endNs = Math.max(result?.endNs ?? kernel.now, ...rankEnds);
  return (
    `dapl run: simulated ${size} rank${size === 1 ? '' : 's'} on ${providerKey}: virtual end time ${Number(endNs.toFixed(3))} ns, ` +
    `${stats.eventsProcessed} events in ${stats.wallMs.toFixed(1)} ms wall (${Math.round(stats.eventsPerSecond)} events/s)\n`
  );
}
