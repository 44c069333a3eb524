import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Job, type JobSpec } from '../src/launcher/job.js';
import type { LauncherClock, LauncherTimer } from '../src/launcher/launcher-clock.js';
import type { LauncherPmiServer, LauncherPmiServerOptions } from '../src/launcher/pmi-server-port.js';
import type { RankExit, RankProcess, RankSpawnRequest } from '../src/launcher/rank-process.js';

/** Time that moves only when the test says so. */
class ManualClock implements LauncherClock {
  #now = 0;
  #timers: { at: number; callback: () => void; cancelled: boolean }[] = [];

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): LauncherTimer {
    const timer = { at: this.#now + ms, callback, cancelled: false };
    this.#timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => !t.cancelled && t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#now = due.at;
      due.cancelled = true;
      due.callback();
    }
    this.#now = until;
  }

  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }
}

/** A rank: obeys SIGTERM (or only SIGKILL when stubborn); the test makes it print and exit. */
class FakeRank implements RankProcess {
  readonly stdin: PassThrough | undefined;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly pmi = new PassThrough();
  readonly signals: NodeJS.Signals[] = [];
  readonly exited: Promise<RankExit>;
  stubborn = false;
  #resolve!: (exit: RankExit) => void;
  #gone = false;

  constructor(readonly request: RankSpawnRequest) {
    this.stdin = request.stdin ? new PassThrough() : undefined;
    this.exited = new Promise((resolve) => (this.#resolve = resolve));
  }

  signal(signal: NodeJS.Signals): void {
    this.signals.push(signal);
    if (signal === 'SIGKILL' || !this.stubborn) this.exit({ kind: 'signaled', signal });
  }

  /** End the process; its PMI socket closes now, or later when `closePmi` is false (the test closes it). */
  exit(exit: RankExit, closePmi = true): void {
    if (this.#gone) return;
    this.#gone = true;
    this.stdout.end();
    this.stderr.end();
    this.#resolve(exit);
    if (closePmi) this.pmi.destroy();
  }
}

class FakePmiServer implements LauncherPmiServer {
  readonly attached: number[] = [];
  closed = false;
  constructor(readonly options: LauncherPmiServerOptions) {}
  attach(_stream: unknown, rank: number): void {
    this.attached.push(rank);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

interface Harness {
  readonly job: Job;
  readonly ranks: FakeRank[];
  readonly clock: ManualClock;
  readonly server: () => FakePmiServer;
  readonly stdout: string[];
  readonly stderr: string[];
}

function harness(spec: Partial<JobSpec> = {}, spawnFails?: number): Harness {
  const ranks: FakeRank[] = [];
  const clock = new ManualClock();
  let server: FakePmiServer | undefined;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const job = new Job(
    { size: 4, program: '/p/app.mjs', args: ['x'], cwd: '/p', env: { A: '1' }, tagOutput: false, graceMs: 1000, ...spec },
    {
      spawnRank: (request) => {
        if (request.rank === spawnFails) throw new Error('spawn EAGAIN');
        const rank = new FakeRank(request);
        ranks.push(rank);
        return rank;
      },
      createPmiServer: (options) => (server = new FakePmiServer(options)),
      clock,
      stdout: { write: (t: string) => stdout.push(t) },
      stderr: { write: (t: string) => stderr.push(t) },
    },
  );
  return { job, ranks, clock, server: () => server!, stdout, stderr };
}

/** Let promise callbacks and stream events run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Job (fake processes and clock)', () => {
  it('runs N ranks with their PMI environment, forwards tagged output, completes when all exit 0', async () => {
    const stdin = new PassThrough();
    const h = harness({ tagOutput: true, stdin });
    const done = h.job.run();
    expect(h.ranks.map((r) => r.request.env)).toEqual([0, 1, 2, 3].map((rank) => ({ A: '1', PMI_FD: '3', PMI_RANK: String(rank), PMI_SIZE: '4', MPI_LOCALNRANKS: '4', MPI_LOCALRANKID: String(rank) })));
    expect(h.ranks.map((r) => r.request.stdin)).toEqual([true, false, false, false]);
    expect(h.ranks[0]!.request).toMatchObject({ program: '/p/app.mjs', args: ['x'], cwd: '/p' });
    expect(h.server().attached).toEqual([0, 1, 2, 3]);
    expect(h.server().options.size).toBe(4);

    const received: string[] = [];
    h.ranks[0]!.stdin!.on('data', (c: Buffer) => received.push(c.toString()));
    stdin.write('to rank 0\n');
    h.ranks[2]!.stdout.write('hel');
    h.ranks[1]!.stdout.write('one\n');
    h.ranks[2]!.stdout.write('lo\npartial');
    h.ranks[3]!.stderr.write('warn\n');
    await settle();
    for (const r of h.ranks) h.server().options.onFinalize(r.request.rank);
    for (const r of h.ranks) r.exit({ kind: 'exited', code: 0 });
    expect(await done).toEqual({ kind: 'completed' });
    expect(received).toEqual(['to rank 0\n']);
    expect(h.stdout).toEqual(['[1] one\n', '[2] hello\n', '[2] partial\n']);
    expect(h.stderr).toEqual(['[3] warn\n']);
    expect(h.server().closed).toBe(true);
    expect(h.ranks.flatMap((r) => r.signals)).toEqual([]);
    expect(h.clock.pending).toBe(0);
  });

  it('a rank exiting non-zero stops the others: SIGTERM, then SIGKILL after the grace period for one that ignores it', async () => {
    const h = harness();
    const done = h.job.run();
    h.ranks[3]!.stubborn = true;
    h.clock.advance(410);
    h.ranks[1]!.exit({ kind: 'exited', code: 3 });
    await settle();
    expect(h.stderr).toEqual(['dapl run: rank 1 exited with code 3 after 0.41 s; stopping the other 3 ranks\n']);
    expect(h.ranks.map((r) => r.signals)).toEqual([['SIGTERM'], [], ['SIGTERM'], ['SIGTERM']]);
    let finished = false;
    void done.then(() => (finished = true));
    await settle();
    expect(finished).toBe(false); // rank 3 still runs
    h.clock.advance(999);
    expect(h.ranks[3]!.signals).toEqual(['SIGTERM']);
    h.clock.advance(1);
    expect(h.ranks[3]!.signals).toEqual(['SIGTERM', 'SIGKILL']);
    expect(await done).toEqual({ kind: 'rank-exited', rank: 1, code: 3, atMs: 410, running: 3 });
    expect(h.stderr).toHaveLength(1); // the ranks killed on purpose are not failures of their own
  });

  it('worst case, every rank is gone 1.25 s after a failing exit: 0.25 s waiting for its PMI socket, then 1 s of grace', async () => {
    const h = harness({ size: 3 });
    const done = h.job.run();
    for (const r of h.ranks) r.stubborn = true;
    h.clock.advance(100);
    h.ranks[0]!.exit({ kind: 'exited', code: 9 }, false); // a child of rank 0 still holds its PMI socket
    await settle();
    h.clock.advance(249);
    expect(h.ranks.map((r) => r.signals)).toEqual([[], [], []]);
    h.clock.advance(1);
    expect(h.ranks.map((r) => r.signals)).toEqual([[], ['SIGTERM'], ['SIGTERM']]);
    h.clock.advance(1000);
    expect(h.ranks.map((r) => r.signals)).toEqual([[], ['SIGTERM', 'SIGKILL'], ['SIGTERM', 'SIGKILL']]);
    expect(await done).toMatchObject({ kind: 'rank-exited', rank: 0, code: 9, atMs: 350 });
    expect(h.clock.now() - 100).toBe(1250);
  });

  it('a rank killed by a signal ends the job', async () => {
    const h = harness({ size: 3 });
    const done = h.job.run();
    h.ranks[2]!.exit({ kind: 'signaled', signal: 'SIGKILL' });
    expect(await done).toMatchObject({ kind: 'rank-signaled', rank: 2, signal: 'SIGKILL', running: 2 });
    expect(h.stderr[0]).toMatch(/^dapl run: rank 2 was killed by SIGKILL after 0\.00 s; stopping the other 2 ranks\n$/);
  });

  it('an abort is reported as the abort even when the exit is seen before the PMI socket is drained', async () => {
    const h = harness({ size: 2 });
    const done = h.job.run();
    h.ranks[1]!.exit({ kind: 'exited', code: 7 }, false);
    await settle();
    expect(h.stderr).toEqual([]); // waits for the PMI socket
    h.server().options.onAbort(1, 7);
    h.ranks[1]!.pmi.destroy();
    expect(await done).toMatchObject({ kind: 'rank-aborted', rank: 1, code: 7, running: 1 });
    expect(h.stderr).toEqual(['dapl run: rank 1 called abort with code 7 after 0.00 s; stopping the other rank\n']);
    expect(h.ranks[0]!.signals).toEqual(['SIGTERM']);
  });

  it('an exit whose PMI socket never closes (a child holds it) is judged after a short wait', async () => {
    const h = harness({ size: 2 });
    const done = h.job.run();
    h.ranks[0]!.exit({ kind: 'exited', code: 4 }, false);
    await settle();
    expect(h.stderr).toEqual([]);
    h.clock.advance(250);
    expect(await done).toMatchObject({ kind: 'rank-exited', rank: 0, code: 4, atMs: 250 });
  });

  it('exit 0 after closing PMI without finalize ends the job; after finalize, or without ever speaking PMI, it does not', async () => {
    const h = harness({ size: 4 });
    const done = h.job.run();
    const { options } = h.server();
    for (const r of h.ranks.slice(0, 3)) r.pmi.write('cmd=init pmi_version=1 pmi_subversion=1\n');
    await settle();
    options.onDisconnect(3); // rank 3 never spoke PMI: a plain program may ignore it
    options.onFinalize(0);
    h.ranks[0]!.exit({ kind: 'exited', code: 0 });
    h.ranks[3]!.exit({ kind: 'exited', code: 0 });
    await settle();
    expect(h.stderr).toEqual([]);
    options.onDisconnect(2);
    h.ranks[2]!.exit({ kind: 'exited', code: 0 });
    expect(await done).toMatchObject({ kind: 'rank-lost', rank: 2, running: 1 });
    expect(h.ranks.map((r) => r.signals)).toEqual([[], ['SIGTERM'], [], []]);
    expect(h.stderr).toEqual(['dapl run: rank 2 closed its PMI connection without finalize and exited with code 0 after 0.00 s; stopping the other rank\n']);
  });

  it('a PMI protocol error stops the job, the offender included', async () => {
    const h = harness({ size: 2 });
    const done = h.job.run();
    h.server().options.onProtocolError(1, 'unknown command "cmd=hello"');
    expect(h.ranks.map((r) => r.signals)).toEqual([['SIGTERM'], ['SIGTERM']]);
    expect(await done).toMatchObject({ kind: 'protocol-error', rank: 1, running: 1 });
    expect(h.stderr).toEqual(['dapl run: rank 1 broke the PMI protocol (unknown command "cmd=hello") after 0.00 s; stopping the other rank\n']);
  });

  it('--timeout stops a job that does not finish', async () => {
    const h = harness({ size: 2, timeoutMs: 5000 });
    const done = h.job.run();
    h.clock.advance(4999);
    expect(h.stderr).toEqual([]);
    h.clock.advance(1);
    expect(await done).toEqual({ kind: 'timed-out', limitMs: 5000, atMs: 5000, running: 2 });
    expect(h.stderr).toEqual(['dapl run: the job did not finish within --timeout 5 s; stopping the 2 running ranks\n']);
  });

  it('an interrupt is forwarded as the same signal; a second one kills at once', async () => {
    const h = harness({ size: 2 });
    const done = h.job.run();
    for (const r of h.ranks) r.stubborn = true;
    h.job.interrupt('SIGINT');
    expect(h.ranks.map((r) => r.signals)).toEqual([['SIGINT'], ['SIGINT']]);
    h.job.interrupt('SIGINT');
    expect(h.ranks.map((r) => r.signals)).toEqual([['SIGINT', 'SIGKILL'], ['SIGINT', 'SIGKILL']]);
    expect(await done).toMatchObject({ kind: 'interrupted', signal: 'SIGINT', running: 2 });
  });

  it('a rank that cannot be spawned stops the ones already started and starts no more', async () => {
    const h = harness({ size: 4 }, 2);
    const done = h.job.run();
    expect(h.ranks).toHaveLength(2);
    expect(await done).toMatchObject({ kind: 'not-started', rank: 2, message: 'spawn EAGAIN', running: 2 });
    expect(h.ranks.map((r) => r.signals)).toEqual([['SIGTERM'], ['SIGTERM']]);
  });

  it('run() twice is refused', async () => {
    const h = harness({ size: 1 });
    const done = h.job.run();
    await expect(h.job.run()).rejects.toThrow('only once');
    h.ranks[0]!.exit({ kind: 'exited', code: 0 });
    expect(await done).toEqual({ kind: 'completed' });
  });
});
