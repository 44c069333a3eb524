import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { TextSink } from '../cli/cli-types.js';
import type { LauncherClock, LauncherTimer } from './launcher-clock.js';
import { describeFailure, type JobFailure, type JobOutcome } from './job-outcome.js';
import { LineForwarder } from './line-forwarder.js';
import type { CreatePmiServer, LauncherPmiServer } from './pmi-server-port.js';
import { rankEnvironment } from './rank-environment.js';
import { describeRankWaits, WAIT_REPORT_MS, type RankWaits } from './wait-report.js';
import type { WaitReport } from '../runtime/declared-waits.js';
import type { RankExit, RankProcess, SpawnRank } from './rank-process.js';

/** Between SIGTERM and SIGKILL when the job is stopped: all ranks are gone well within 2 s of a failure. */
export const DEFAULT_GRACE_MS = 1000;
/** How long after its exit a rank's PMI socket may stay open (a child of it may hold fd 3) before it counts as closed. */
const PMI_CLOSE_WAIT_MS = 250;
/** Bound on the last output and on closing the PMI server once every rank is gone. */
const DRAIN_MS = 1000;

/** What `dapl run` starts: the program, its ranks and their environment, and how to supervise them. */
export interface JobSpec {
  /** Ranks in the job. */
  readonly size: number;
  /** Absolute path. */
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Every rank's environment before its PMI variables (`jobEnvironment`). */
  readonly env: Readonly<Record<string, string>>;
  /** Prefix each output line with `[<rank>] `. */
  readonly tagOutput: boolean;
  /** Stop the job this long after it started. */
  readonly timeoutMs?: number;
  /** Default `DEFAULT_GRACE_MS`. */
  readonly graceMs?: number;
  /**
   * On --timeout and on an interrupt, first ask the running ranks what they wait for and print it
   * (default true).
   */
  readonly reportWaits?: boolean;
  /** Forwarded to rank 0's stdin; without it rank 0 gets none. */
  readonly stdin?: Readable;
}

export interface JobCollaborators {
  readonly spawnRank: SpawnRank;
  readonly createPmiServer: CreatePmiServer;
  readonly clock: LauncherClock;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Handed to the PMI server. */
  readonly logger?: Logger;
}

interface RankState {
  readonly rank: number;
  readonly process: RankProcess;
  readonly output: Promise<unknown>;
  readonly forwarders: readonly LineForwarder[];
  exit: RankExit | undefined;
  finalized: boolean;
  /** Sent anything on its PMI socket: a program that never uses PMI may exit without finalize. */
  spokePmi: boolean;
  /** The PMI server saw the connection close before finalize. */
  disconnected: boolean;
  pmiClosed: boolean;
  pmiWait: LauncherTimer | undefined;
  /** Exited, and its PMI socket closed or no longer waited for. */
  done: boolean;
}

/**
 * One run of N ranks: spawns them, serves their PMI, forwards their output, and ends the whole job
 * at the first failure (a non-zero exit, a signal, a PMI abort or protocol error, an exit 0 after
 * closing PMI without finalize), timeout or interrupt: SIGTERM to every live rank, SIGKILL after the
 * grace period. `run()` resolves only once every rank is gone.
 */
export class Job {
  readonly #spec: JobSpec;
  readonly #c: JobCollaborators;
  readonly #ranks: RankState[] = [];
  #server: LauncherPmiServer | undefined;
  #startMs = 0;
  #started = false;
  #spawning = false;
  #failure: JobFailure | undefined;
  #timers: LauncherTimer[] = [];
  #allDone: () => void = () => undefined;
  /** Set while the ranks' wait reports are being collected. */
  #onWaits: ((rank: number, waits: WaitReport[] | undefined) => void) | undefined;

  constructor(spec: JobSpec, collaborators: JobCollaborators) {
    this.#spec = spec;
    this.#c = collaborators;
  }

  /** Run the job to its end. Call once. */
  async run(): Promise<JobOutcome> {
    if (this.#started) throw new Error('Job.run() may be called only once');
    this.#started = true;
    this.#startMs = this.#c.clock.now();
    const allDone = new Promise<void>((resolve) => (this.#allDone = resolve));
    const server = this.#c.createPmiServer({
      size: this.#spec.size,
      logger: this.#c.logger,
      onAbort: (rank, code) => this.#end({ kind: 'rank-aborted', rank, code, atMs: this.#elapsed(), running: this.#running(rank) }),
      onProtocolError: (rank, message) => this.#end({ kind: 'protocol-error', rank, message, atMs: this.#elapsed(), running: this.#running(rank) }),
      onFinalize: (rank) => this.#withRank(rank, (r) => (r.finalized = true)),
      onDisconnect: (rank) => this.#withRank(rank, (r) => (r.disconnected = !r.finalized)),
      onWaits: (rank, waits) => this.#onWaits?.(rank, waits),
    });
    this.#server = server;
    this.#spawning = true;
    for (let rank = 0; rank < this.#spec.size && this.#failure === undefined; rank++) this.#spawn(rank);
    this.#spawning = false;
    const { timeoutMs } = this.#spec;
    if (timeoutMs !== undefined && this.#failure === undefined) {
      this.#timers.push(this.#c.clock.after(timeoutMs, () => this.#end({ kind: 'timed-out', limitMs: timeoutMs, atMs: this.#elapsed(), running: this.#running() })));
    }
    this.#checkAllDone();
    await allDone;

    for (const timer of this.#timers) timer.cancel();
    await this.#within(server.close(), DRAIN_MS);
    await this.#within(Promise.all(this.#ranks.map((r) => r.output)), DRAIN_MS);
    for (const r of this.#ranks) {
      for (const f of r.forwarders) f.flush();
      r.process.stdout.destroy();
      r.process.stderr.destroy();
      r.process.pmi.destroy();
    }
    return this.#failure ?? { kind: 'completed' };
  }

  /** The launcher got `signal`: forward it to the ranks and end the job; a second one kills them at once. */
  interrupt(signal: NodeJS.Signals): void {
    if (!this.#started) return;
    if (this.#failure !== undefined) {
      this.#signalLive('SIGKILL');
      return;
    }
    this.#end({ kind: 'interrupted', signal, atMs: this.#elapsed(), running: this.#running() });
  }

  #spawn(rank: number): void {
    const spec = this.#spec;
    const withStdin = rank === 0 && spec.stdin !== undefined;
    let process: RankProcess;
    try {
      process = this.#c.spawnRank({ rank, program: spec.program, args: spec.args, cwd: spec.cwd, env: rankEnvironment(spec.env, rank, spec.size), stdin: withStdin });
    } catch (error) {
      this.#end({ kind: 'not-started', rank, message: messageOf(error), atMs: this.#elapsed(), running: this.#running() });
      return;
    }
    const prefix = spec.tagOutput ? `[${rank}] ` : '';
    const forwarders = [new LineForwarder((t) => this.#c.stdout.write(t), prefix), new LineForwarder((t) => this.#c.stderr.write(t), prefix)];
    const output = Promise.all(
      [process.stdout, process.stderr].map((stream, i) => {
        stream.on('data', (chunk: Buffer | string) => forwarders[i]!.push(chunk));
        return finished(stream).catch(() => undefined);
      }),
    );
    const state: RankState = { rank, process, output, forwarders, exit: undefined, finalized: false, spokePmi: false, disconnected: false, pmiClosed: false, pmiWait: undefined, done: false };
    this.#ranks.push(state);

    process.pmi.on('error', () => undefined); // the server reports what matters; a reset socket must not crash the launcher
    process.pmi.once('data', () => (state.spokePmi = true));
    this.#server!.attach(process.pmi, rank);
    // After the server's own listeners: on a reset socket 'close' comes without 'end', and the
    // server must have recorded the disconnect (without finalize) before the exit is judged.
    process.pmi.once('close', () => {
      state.pmiClosed = true;
      this.#settle(state);
    });
    if (withStdin && process.stdin !== undefined) {
      process.stdin.on('error', () => undefined); // EPIPE once rank 0 has exited
      spec.stdin!.pipe(process.stdin);
    }
    void process.exited.then((exit) => this.#onExit(state, exit));
  }

  #onExit(state: RankState, exit: RankExit): void {
    state.exit = exit;
    if (state.rank === 0 && this.#spec.stdin !== undefined && state.process.stdin !== undefined) this.#spec.stdin.unpipe(state.process.stdin);
    if (exit.kind === 'not-started') state.pmiClosed = true;
    if (!state.pmiClosed) {
      state.pmiWait = this.#c.clock.after(PMI_CLOSE_WAIT_MS, () => {
        state.pmiClosed = true;
        this.#settle(state);
      });
    }
    this.#settle(state);
  }

  /**
   * A rank is done once it exited and its PMI socket closed. The exit is judged only then: a rank's
   * last PMI lines (an abort, a finalize) may be read after its exit is seen, and they say more.
   */
  #settle(state: RankState): void {
    if (state.done || state.exit === undefined) return;
    if (!state.pmiClosed && this.#failure === undefined) return;
    state.done = true;
    state.pmiWait?.cancel();
    const { exit, rank } = state;
    const atMs = this.#elapsed();
    const running = this.#running();
    if (exit.kind === 'not-started') this.#end({ kind: 'not-started', rank, message: exit.message, atMs, running });
    else if (exit.kind === 'signaled') this.#end({ kind: 'rank-signaled', rank, signal: exit.signal, atMs, running });
    else if (exit.code !== 0) this.#end({ kind: 'rank-exited', rank, code: exit.code, atMs, running });
    else if (state.spokePmi && state.disconnected && !state.finalized) this.#end({ kind: 'rank-lost', rank, atMs, running });
    this.#checkAllDone();
  }

  #end(failure: JobFailure): void {
    if (this.#failure !== undefined) return;
    this.#failure = failure;
    this.#c.stderr.write(describeFailure(failure));
    const stuck = failure.kind === 'timed-out' || failure.kind === 'interrupted';
    if (stuck && this.#spec.reportWaits !== false && this.#server?.requestWaitReports !== undefined) {
      void this.#reportWaits().then(() => this.#stop(failure));
    } else {
      this.#stop(failure);
    }
  }

  /**
   * Ask the ranks still running what they wait for, and print their answers (those that do not
   * answer within `WAIT_REPORT_MS` are named too). A second interrupt meanwhile kills them at once.
   */
  async #reportWaits(): Promise<void> {
    const answers = new Map<number, RankWaits>();
    const asked = new Set(this.#server!.requestWaitReports!());
    const live = this.#ranks.filter((r) => r.exit === undefined && r.spokePmi && asked.has(r.rank));
    if (live.length === 0) return;
    await new Promise<void>((resolve) => {
      const timer = this.#c.clock.after(WAIT_REPORT_MS, resolve);
      this.#onWaits = (rank, waits) => {
        answers.set(rank, waits ?? 'malformed');
        if (live.every((r) => answers.has(r.rank) || r.exit !== undefined)) {
          timer.cancel();
          resolve();
        }
      };
    });
    this.#onWaits = undefined;
    for (const r of live) if (r.exit === undefined || answers.has(r.rank)) this.#c.stderr.write(describeRankWaits(r.rank, answers.get(r.rank) ?? 'no-answer'));
  }

  #stop(failure: JobFailure): void {
    this.#signalLive(failure.kind === 'interrupted' ? failure.signal : 'SIGTERM');
    this.#timers.push(this.#c.clock.after(this.#spec.graceMs ?? DEFAULT_GRACE_MS, () => this.#signalLive('SIGKILL')));
    for (const r of this.#ranks) this.#settle(r);
  }

  #checkAllDone(): void {
    if (this.#spawning) return;
    const everyRankRan = this.#ranks.length === this.#spec.size || this.#failure !== undefined;
    if (everyRankRan && this.#ranks.every((r) => r.done)) this.#allDone();
  }

  #signalLive(signal: NodeJS.Signals): void {
    for (const r of this.#ranks) if (r.exit === undefined) r.process.signal(signal);
  }

  /** Ranks still running, not counting `except`. */
  #running(except?: number): number {
    return this.#ranks.filter((r) => r.exit === undefined && r.rank !== except).length;
  }

  #withRank(rank: number, update: (state: RankState) => void): void {
    const state = this.#ranks.find((r) => r.rank === rank);
    if (state !== undefined) update(state);
  }

  #elapsed(): number {
    return this.#c.clock.now() - this.#startMs;
  }

  /** `promise`, or nothing after `ms`: cleanup must never hang the launcher. */
  async #within(promise: Promise<unknown>, ms: number): Promise<void> {
    let timer: LauncherTimer | undefined;
    const expiry = new Promise<void>((resolve) => (timer = this.#c.clock.after(ms, resolve)));
    await Promise.race([promise.then(() => undefined, () => undefined), expiry]);
    timer?.cancel();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
