import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { runInProcess, type RunInProcessOptions } from '../src/launcher/in-process/run-in-process.js';
import type { Clock } from '../src/runtime/runtime.js';
import { nativeImport } from './fixtures/in-process/native-import.js';

// The runner from core's sources; the ranks run the fixtures against the built @dapl/core (the test
// run builds first) over the loopback provider, registered by the fixture config.
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures', 'in-process');
const configFile = join(fixtures, 'dapl.config.json');
const ringExample = join(here, '..', '..', '..', 'examples', 'dat-ring.mjs');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** An environment without the variables that would change what the ranks see. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DAPL_') && !k.startsWith('PMI_')) env[k] = v;
  return env;
}

async function run(program: string, args: string[], options: Partial<RunInProcessOptions> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runInProcess({
    program,
    args,
    size: 3,
    configFile,
    env: cleanEnv(),
    cwd: fixtures,
    importProgram: nativeImport,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    ...options,
  });
  // What the abandoned ranks do with their rejected calls happens in microtasks: let them run.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

const sortedLines = (text: string) => text.split('\n').filter((l) => l !== '').sort();
const launcherLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('dapl run: '));
const rejections = () => ((globalThis as { __inProcessRejections?: string[] }).__inProcessRejections ??= []);

describe('in-process jobs: module privatisation', () => {
  it('each rank has its own instance of the program modules, shares @dapl/core, sees its arguments and one fresh job key', async () => {
    const argv = process.argv;
    const r = await run('privatised.mjs', ['alpha', 'beta'], { size: 4 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = sortedLines(r.stdout);
    expect(lines).toHaveLength(4);
    lines.forEach((line, rank) => expect(line).toMatch(new RegExp(`^rank ${rank} of 4: counter 1, core instance 1, args alpha,beta, key [0-9a-f]{64}$`)));
    expect(new Set(lines.map((l) => l.split(' key ')[1])).size).toBe(1);
    expect(process.argv).toBe(argv);
  });

  it('a second job of the same program gets fresh module instances and a new key', async () => {
    const first = await run('privatised.mjs', [], { size: 2 });
    const second = await run('privatised.mjs', [], { size: 2 });
    expect([first.code, second.code]).toEqual([0, 0]);
    for (const r of [first, second]) expect(sortedLines(r.stdout).map((l) => l.split(', core')[0])).toEqual(['rank 0 of 2: counter 1', 'rank 1 of 2: counter 1']);
    expect(first.stdout.split(' key ')[1]).not.toBe(second.stdout.split(' key ')[1]);
  });

  it('a rank whose modules wait on a shared package with top-level await still runs in its own context', async () => {
    // A package module with top-level await, first evaluated for one rank: the others' modules run
    // when it finishes, in that rank's async context unless they re-enter their own.
    const dir = mkdtempSync(join(tmpdir(), 'dapl-in-process-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'node_modules', 'slow-shared'), { recursive: true });
    mkdirSync(join(dir, 'node_modules', '@dapl'));
    symlinkSync(join(here, '..'), join(dir, 'node_modules', '@dapl', 'core'), 'dir');
    writeFileSync(join(dir, 'node_modules', 'slow-shared', 'package.json'), JSON.stringify({ name: 'slow-shared', type: 'module', exports: './index.js' }));
    writeFileSync(join(dir, 'node_modules', 'slow-shared', 'index.js'), 'await new Promise((r) => setTimeout(r, 20));\nexport const loads = (globalThis.__slowSharedLoads ?? 0) + 1;\nglobalThis.__slowSharedLoads = loads;\n');
    writeFileSync(
      join(dir, 'program.mjs'),
      [
        "import { runtimeFromEnvironment } from '@dapl/core';",
        "import { loads } from 'slow-shared';",
        'const runtime = await runtimeFromEnvironment();',
        'await runtime.barrier();',
        'console.log(`rank ${runtime.rank}: slow-shared loaded ${loads} time(s)`);',
        'await runtime.finalize();',
      ].join('\n'),
    );
    const r = await run(join(dir, 'program.mjs'), [], { configFile: undefined, cwd: dir, timeoutS: 10 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(sortedLines(r.stdout)).toEqual(['rank 0: slow-shared loaded 1 time(s)', 'rank 1: slow-shared loaded 1 time(s)', 'rank 2: slow-shared loaded 1 time(s)']);
  });
});

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('in-process jobs: running', () => {
  it('the DAT ring example passes its token over the loopback provider', async () => {
    const r = await run(ringExample, ['3'], { size: 4, timeoutS: 20 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(sortedLines(r.stdout)).toEqual([
      'dat-ring: 4 ranks, 3 laps, token 30 (expected 30): OK',
      ...[0, 1, 2, 3].map((rank) => `rank ${rank} of 4: passed the token 3 times`),
    ]);
  });

  it('--tag-output prefixes every line; a last line without newline is flushed; a rank that never used its runtime may end without finalize', async () => {
    const r = await run('misbehaves.mjs', ['plain'], { tagOutput: true });
    expect(r.code).toBe(0);
    expect(sortedLines(r.stdout)).toEqual(['[0] no newline from 0', '[0] plain rank 0', '[1] no newline from 1', '[1] plain rank 1', '[2] no newline from 2', '[2] plain rank 2']);
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('each rank gets the clock the caller makes for it, and the ranks run through the given driver', async () => {
    const clock = (rank: number): Clock => ({ now: () => 1000 + rank, tick: 1, charge: () => undefined, chargeCopy: () => undefined });
    const started: number[] = [];
    const r = await run('misbehaves.mjs', ['clock'], {
      clock,
      runRanks: (mains) => {
        // Last rank first: the job must not depend on the order ranks start in.
        for (let rank = mains.length - 1; rank >= 0; rank--) {
          started.push(rank);
          void mains[rank]!();
        }
      },
    });
    expect(r.code).toBe(0);
    expect(started).toEqual([2, 1, 0]);
    expect(sortedLines(r.stdout)).toEqual(['rank 0 clock 1000', 'rank 0 passed the second barrier', 'rank 0 ready', 'rank 1 clock 1001', 'rank 1 passed the second barrier', 'rank 1 ready', 'rank 2 clock 1002', 'rank 2 passed the second barrier', 'rank 2 ready']);
  });

  it('a driver that fails ends the job with its message (exit 1)', async () => {
    const r = await run('misbehaves.mjs', ['plain'], {
      runRanks: () => Promise.reject(new Error('deadlock: every rank is blocked')),
    });
    expect(r.code).toBe(1);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: deadlock: every rank is blocked after \d+\.\d\d s; stopping the 3 running ranks$/)]);
  });
});

describe('in-process jobs: failures end the job as with processes', () => {
  it('a rank throws: exit 1, its error on stderr, one line naming it; the others are abandoned (their barrier rejects)', async () => {
    rejections().length = 0;
    const r = await run('misbehaves.mjs', ['throw']);
    expect(r.code).toBe(1);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 exited with code 1 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    expect(r.stderr).toContain('Error: rank 1 fails on purpose');
    expect(r.stdout).not.toContain('passed the second barrier');
    expect(rejections().sort()).toEqual([`rank 0: ${DatStatus.ABORT}`, `rank 2: ${DatStatus.ABORT}`]);
  });

  it("a rank calls runtime.abort(7, 'why'): exit 7, the abort on its stderr, the line names it", async () => {
    const r = await run('misbehaves.mjs', ['abort']);
    expect(r.code).toBe(7);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 called abort with code 7 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    expect(r.stderr).toContain('dapl: rank 1 aborting the job (exit code 7): why');
  });

  it('a rank calls process.exit(3): exit 3, the line names it, the process lives on', async () => {
    rejections().length = 0;
    const r = await run('misbehaves.mjs', ['exit'], { tagOutput: true });
    expect(r.code).toBe(3);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 exited with code 3 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    // The others may or may not have printed theirs before rank 1 left: the barrier released all three.
    expect(r.stdout).toContain('[1] rank 1 ready\n');
    expect(r.stdout).not.toContain('passed the second barrier');
    expect(rejections().sort()).toEqual([`rank 0: ${DatStatus.ABORT}`, `rank 2: ${DatStatus.ABORT}`]);
  });

  it('a rank ends after using its runtime without finalizing it: exit 1, the line says so', async () => {
    const r = await run('misbehaves.mjs', ['leave']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('rank 1 leaves without finalize');
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 ended without finalizing its runtime after \d+\.\d\d s; stopping the other 2 ranks$/)]);
  });

  it('the timeout ends a job that hangs: exit 124', async () => {
    rejections().length = 0;
    // Long enough for the ranks to reach their waits on a loaded host: the rejections of those waits
    // and the report of them are what this checks, not how soon the timeout fires.
    const r = await run('misbehaves.mjs', ['hang'], { timeoutS: 3 });
    expect(r.code).toBe(124);
    const [first, ...report] = launcherLines(r.stderr);
    expect(first).toBe('dapl run: the job did not finish within --timeout 3 s; stopping the 3 running ranks');
    // Then what each running rank waits in: 0 and 2 in the second barrier, 1 in nothing it declares.
    expect(report).toHaveLength(3);
    expect(report[0]).toMatch(/^dapl run: rank 0 waits in runtime\.barrier\(\) for \d+\.\d s$/);
    expect(report[1]).toBe('dapl run: rank 1 declares no wait (running, or blocked in something that does not declare its waits)');
    expect(report[2]).toMatch(/^dapl run: rank 2 waits in runtime\.barrier\(\) for \d+\.\d s$/);
    expect(rejections().sort()).toEqual([`rank 0: ${DatStatus.ABORT}`, `rank 2: ${DatStatus.ABORT}`]);
  });

  /** Two ranks that hang once rank 1 is ready; `running` resolves then. */
  function hangingJob(signals: EventEmitter): { job: Promise<number>; running: Promise<void>; output: { stdout: string; stderr: string } } {
    let ready: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (ready = resolve));
    const output = { stdout: '', stderr: '' };
    const job = runInProcess({
      program: 'misbehaves.mjs',
      args: ['hang'],
      size: 2,
      configFile,
      env: cleanEnv(),
      cwd: fixtures,
      importProgram: nativeImport,
      signals,
      timeoutS: 20,
      stdout: {
        write: (t: string) => {
          output.stdout += t;
          if (/rank 1 ready/.test(t)) ready();
        },
      },
      stderr: { write: (t: string) => void (output.stderr += t) },
    });
    return { job, running, output };
  }

  it('SIGINT ends the job: exit 130; one job at a time in a process', async () => {
    const signals = new EventEmitter();
    const { job, running, output } = hangingJob(signals);
    await running;
    await expect(run('misbehaves.mjs', ['plain'])).rejects.toMatchObject({ status: DatStatus.INVALID_STATE, message: expect.stringMatching(/another in-process job is running/) });
    signals.emit('SIGINT', 'SIGINT');
    expect(await job).toBe(130);
    expect(output.stdout).toContain('rank 1 ready');
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('SIGHUP (a closed terminal) ends the job too: exit 129 and one line naming it', async () => {
    const signals = new EventEmitter();
    const { job, running, output } = hangingJob(signals);
    await running;
    signals.emit('SIGHUP', 'SIGHUP');
    expect(await job).toBe(129);
    expect(output.stderr).toMatch(/^dapl run: received SIGHUP after [\d.]+ s/m);
    expect(signals.listenerCount('SIGHUP')).toBe(0);
  });
});

describe('in-process jobs: what is refused before any rank starts', () => {
  it('an unknown provider is a DatError naming the known keys; a missing program is exit 4; a bad size or timeout is a DatError', async () => {
    await expect(run('misbehaves.mjs', ['plain'], { provider: 'warp-drive' })).rejects.toMatchObject({ status: DatStatus.PROVIDER_NOT_FOUND, message: expect.stringMatching(/unknown provider key "warp-drive"/) });
    const missing = await run('no-such-program.mjs', []);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toBe(`dapl run: program file not found: ${join(fixtures, 'no-such-program.mjs')}\n`);
    await expect(run('misbehaves.mjs', ['plain'], { size: 0 })).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, message: expect.stringMatching(/size must be an integer from 1 to 16777216.*got 0/) });
    await expect(run('misbehaves.mjs', ['plain'], { timeoutS: -1 })).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, message: expect.stringMatching(/timeoutS .*got -1/) });
  });
});
