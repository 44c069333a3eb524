import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import type { TextSink } from '../../cli/cli-types.js';
import type { DaplConfig } from '../../config/dapl-config.js';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { createRootLogger } from '../../logging/root-logger.js';
import { DeclaredWaits } from '../../runtime/declared-waits.js';
import { createLocalJob, type LocalWaitHook } from '../../runtime/local-job.js';
import { describeRankWaits } from '../wait-report.js';
import { rankContext } from '../../runtime/rank-context.js';
import type { Clock } from '../../runtime/runtime.js';
import type { LauncherClock, LauncherTimer } from '../launcher-clock.js';
import { LineForwarder } from '../line-forwarder.js';
import { describeInProcessFailure, type InProcessFailure, type InProcessOutcome } from './in-process-outcome.js';
import { inProcessState } from './in-process-state.js';
import { registerPrivatisationHooks } from './privatisation-hooks.js';
import { installProcessInterceptors } from './process-interceptors.js';
import { isRankExitRequest, RANK_HOST, type HostedRankContext, type RankHost } from './rank-host.js';
import { installEnterRankModule, rankModuleUrl } from './rank-modules.js';
import { InProcessRankRuntime } from './rank-runtime.js';

/** Runs one rank: imports its instance of the program in its context; settles when the program's top-level code has. Never rejects. */
export type RankMain = () => Promise<void>;

/**
 * How the ranks are run, `mains[r]` being rank r's. The default starts them all at once; the
 * simulator's driver runs them as tasks of its virtual-time kernel. `stop` aborts when the job has
 * ended (its remaining ranks are abandoned). A rejection ends the job (e.g. a deadlock report).
 */
export type RunRanks = (mains: readonly RankMain[], stop: AbortSignal) => void | Promise<void>;

/** Imports a module by URL with Node's own loader (so that the privatisation hooks apply). */
export type ImportProgram = (url: string) => Promise<unknown>;

export const startEveryRank: RunRanks = (mains) => {
  for (const main of mains) void main();
};

const importWithNode: ImportProgram = (url) => import(/* @vite-ignore */ url);

export interface InProcessJobSpec {
  readonly size: number;
  /** Absolute path of the program. */
  readonly program: string;
  readonly args: readonly string[];
  /** Every rank's environment in its context (`jobEnvironment`: the job key, provider, config file). */
  readonly env: Readonly<Record<string, string>>;
  /** The configuration every rank's `startJob()` uses. */
  readonly config: DaplConfig;
  /** Prefix each output line with `[<rank>] `. */
  readonly tagOutput: boolean;
  /** End the job this long after it started. */
  readonly timeoutMs?: number;
}

export interface InProcessJobCollaborators {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** The launcher's time: elapsed times in reports, the timeout. */
  readonly clock: LauncherClock;
  /** Each rank's `runtime.clock`; default a wall clock per rank (the simulator passes virtual clocks). */
  readonly rankClock?: (rank: number) => Clock;
  /** Default `startEveryRank`. */
  readonly runRanks?: RunRanks;
  /** Declares the ranks' fence / barrier waits (the simulator passes its kernel's `blockedOn`). */
  readonly waitHook?: LocalWaitHook;
  /** Default: `import()`. A test runner that runs this package's sources with its own loader passes Node's. */
  readonly importProgram?: ImportProgram;
}

interface RankState {
  readonly rank: number;
  readonly runtime: InProcessRankRuntime;
  readonly forwarders: Readonly<Record<'stdout' | 'stderr', LineForwarder>>;
  readonly context: HostedRankContext;
  started: boolean;
  /** Its code has ended (returned, exited or failed). */
  done: boolean;
}

/**
 * One run of N ranks of a program in this process (DESIGN §5): each rank an async task with its
 * own instance of the program's modules and a rank context that `startJob()` finds; the ranks
 * share a local KVS. Output, exit codes and failures follow `dapl run` with processes: the first
 * failure (an uncaught error, `process.exit(c)` with c ≠ 0, `runtime.abort`, ending without
 * finalizing a runtime it used), the timeout or an interrupt ends the job with one line on stderr.
 * The other ranks cannot be killed: their pending and later runtime calls reject, their output is
 * dropped, and `run()` returns without waiting for them.
 */
export class InProcessJob {
  readonly #spec: InProcessJobSpec;
  readonly #c: InProcessJobCollaborators;
  /** Names this job's module instances (`dapl-job`): a second run of the same program gets fresh ones. */
  readonly #id = randomBytes(6).toString('hex');
  #ranks: RankState[] = [];
  #started = false;
  #startMs = 0;
  /** Each rank's declared waits, when no simulator's kernel takes them (see `#createRanks`). */
  #waits: DeclaredWaits[] = [];
  #outcome: InProcessOutcome | undefined;
  #settle: (outcome: InProcessOutcome) => void = () => undefined;

  constructor(spec: InProcessJobSpec, collaborators: InProcessJobCollaborators) {
    this.#spec = spec;
    this.#c = collaborators;
  }

  /** Run the job until every rank's code has ended or the job fails. Call once. */
  async run(): Promise<InProcessOutcome> {
    if (this.#started) throw new DatError(DatStatus.INVALID_STATE, 'InProcessJob.run() may be called only once');
    if (inProcessState.jobRunning) {
      throw new DatError(DatStatus.INVALID_STATE, 'another in-process job is running in this process; its ranks own process.argv, so run one at a time');
    }
    this.#started = true;
    inProcessState.jobRunning = true;
    const argv = process.argv;
    const stop = new AbortController();
    let timer: LauncherTimer | undefined;
    const outcome = new Promise<InProcessOutcome>((resolve) => (this.#settle = resolve));
    try {
      registerPrivatisationHooks();
      installEnterRankModule();
      installProcessInterceptors();
      // Every rank sees the command line it would have as `node program args`.
      process.argv = [process.execPath, this.#spec.program, ...this.#spec.args];
      this.#startMs = this.#c.clock.now();
      this.#ranks = this.#createRanks();
      inProcessState.jobs.set(this.#id, this.#ranks.map((r) => r.context));
      const { timeoutMs } = this.#spec;
      if (timeoutMs !== undefined) {
        timer = this.#c.clock.after(timeoutMs, () => this.#end({ kind: 'timed-out', limitMs: timeoutMs, atMs: this.#elapsed(), running: this.#running() }));
      }
      this.#drive(stop.signal);
      return await outcome;
    } finally {
      timer?.cancel();
      stop.abort();
      for (const r of this.#ranks) {
        r.forwarders.stdout.flush();
        r.forwarders.stderr.flush();
      }
      inProcessState.jobs.delete(this.#id);
      process.argv = argv;
      inProcessState.jobRunning = false;
    }
  }

  /** The launcher got `signal`: end the job (exit 128 + its number). */
  interrupt(signal: NodeJS.Signals): void {
    if (!this.#started) return;
    this.#end({ kind: 'interrupted', signal, atMs: this.#elapsed(), running: this.#running() });
  }

  #createRanks(): RankState[] {
    const { size, env, config, tagOutput } = this.#spec;
    // Without a simulator's kernel to declare them to, the ranks' waits are kept here for the report
    // on --timeout and interrupts (a real provider's ranks in one process can wait for ever).
    this.#waits = Array.from({ length: size }, () => new DeclaredWaits(false));
    const waitHook: LocalWaitHook = this.#c.waitHook ?? ((rank, what, promise) => this.#waits[rank]!.declare(what, promise));
    const locals = createLocalJob(size, {
      clock: this.#c.rankClock,
      waitHook,
      onAbort: (rank, code, message) => this.#onAbort(rank, code, message),
    });
    return locals.map((local, rank) => {
      const prefix = tagOutput ? `[${rank}] ` : '';
      const forwarders = { stdout: this.#forwarder(this.#c.stdout, prefix), stderr: this.#forwarder(this.#c.stderr, prefix) };
      const runtime = new InProcessRankRuntime(local);
      const host: RankHost = {
        write: (stream, chunk) => {
          if (this.#outcome === undefined) forwarders[stream].push(chunk);
        },
        exit: (code) => this.#onExit(state, code),
        fail: (error) => this.#onError(state, error),
      };
      const logger = createRootLogger({ level: config.logLevel, destination: { write: (line: string) => host.write('stderr', Buffer.from(line)) } });
      const context: HostedRankContext = { rank, size, runtime, env, config, logger, [RANK_HOST]: host };
      const state: RankState = { rank, runtime, forwarders, context, started: false, done: false };
      return state;
    });
  }

  /** Whole lines to `sink`, written outside any rank: the sink may be the very `process.stdout` the ranks' writes are routed from. */
  #forwarder(sink: TextSink, prefix: string): LineForwarder {
    return new LineForwarder((text) => rankContext.exit(() => sink.write(text)), prefix);
  }

  #drive(stop: AbortSignal): void {
    const mains = this.#ranks.map((r): RankMain => () => this.#main(r));
    let driven: void | Promise<void>;
    try {
      driven = (this.#c.runRanks ?? startEveryRank)(mains, stop);
    } catch (error) {
      driven = Promise.reject(error);
    }
    void Promise.resolve(driven).then(undefined, (error: unknown) =>
      this.#end({ kind: 'driver-failed', message: messageOf(error), atMs: this.#elapsed(), running: this.#running() }),
    );
  }

  #main(r: RankState): Promise<void> {
    if (r.started) return Promise.resolve();
    r.started = true;
    const url = rankModuleUrl(this.#spec.program, this.#id, r.rank);
    const importProgram = this.#c.importProgram ?? importWithNode;
    // The context set around import() reaches the modules' top-level code and what it awaits.
    const ran = new Promise<unknown>((resolve) => resolve(rankContext.run(r.context, () => importProgram(url))));
    return ran.then(
      () => this.#onReturn(r),
      (error: unknown) => this.#onError(r, error),
    );
  }

  /** The rank's code ended normally (or called `process.exit(0)`): as a process exiting 0, it must have finalized a runtime it used. */
  #onReturn(r: RankState): void {
    if (this.#outcome !== undefined || r.done) return;
    r.done = true;
    if (r.runtime.joined && !r.runtime.finalized) {
      this.#end({ kind: 'rank-unfinalized', rank: r.rank, atMs: this.#elapsed(), running: this.#running(r.rank) });
      return;
    }
    if (this.#ranks.every((x) => x.done)) this.#finish();
  }

  #onExit(r: RankState, code: number): void {
    if (this.#outcome !== undefined) return;
    if (code === 0) {
      this.#onReturn(r);
      return;
    }
    r.done = true;
    this.#end({ kind: 'rank-exited', rank: r.rank, code, atMs: this.#elapsed(), running: this.#running(r.rank) });
  }

  /** An error the rank did not catch: printed on its stderr as Node prints one, and the rank "exits" 1. */
  #onError(r: RankState, error: unknown): void {
    // process.exit in a rank throws to stop the rank's code; its exit has been handled.
    if (isRankExitRequest(error) || this.#outcome !== undefined) return;
    r.forwarders.stderr.push(`${inspect(error)}\n`);
    r.done = true;
    this.#end({ kind: 'rank-exited', rank: r.rank, code: 1, atMs: this.#elapsed(), running: this.#running(r.rank) });
  }

  /** From the local runtime, in the aborting rank's call: its message goes to its stderr as `PmiRuntime` prints it. */
  #onAbort(rank: number, code: number, message: string): void {
    const r = this.#ranks[rank];
    if (this.#outcome !== undefined || r === undefined) return;
    r.forwarders.stderr.push(`dapl: rank ${rank} aborting the job (exit code ${code}): ${message}\n`);
    r.done = true;
    this.#end({ kind: 'rank-aborted', rank, code, atMs: this.#elapsed(), running: this.#running(rank) });
  }

  #end(failure: InProcessFailure): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = failure;
    const line = describeInProcessFailure(failure);
    rankContext.exit(() => this.#c.stderr.write(line));
    if ((failure.kind === 'timed-out' || failure.kind === 'interrupted') && this.#c.waitHook === undefined) {
      for (const r of this.#ranks) if (!r.done) rankContext.exit(() => this.#c.stderr.write(describeRankWaits(r.rank, this.#waits[r.rank]!.report())));
    }
    const ended = new DatError(DatStatus.ABORT, `the in-process job has ended: ${line.replace(/^dapl run: /, '').trim()}`);
    for (const r of this.#ranks) r.runtime.end(ended);
    this.#settle(failure);
  }

  #finish(): void {
    this.#outcome = { kind: 'completed' };
    this.#settle(this.#outcome);
  }

  /** Ranks whose code is still running, not counting `except`. */
  #running(except?: number): number {
    return this.#ranks.filter((r) => !r.done && r.rank !== except).length;
  }

  #elapsed(): number {
    return this.#c.clock.now() - this.#startMs;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
