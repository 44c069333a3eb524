import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.js';
import { COMMANDS } from '../src/cli/commands.js';
import { createRunCommand } from '../src/cli/run-command.js';

// Real ranks: node processes running the fixtures against the built @dapl/core (the test run builds first).
const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => join(here, 'fixtures', 'launch', name);
const bin = join(here, '..', 'dist', 'cli', 'main.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The argument every rank got, to find leftovers in the process table. */
  readonly marker: string;
}

/** An environment without the variables that would change what the ranks see. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DAPL_') && !k.startsWith('PMI_')) env[k] = v;
  return env;
}

/** `dapl run <options> -- <program> <marker>` in-process, with `stdin` forwarded to rank 0. */
async function runJob(options: string[], program: string, stdin: Readable | null = null): Promise<Run> {
  const marker = `marker-${randomUUID()}`;
  let stdout = '';
  let stderr = '';
  const command = createRunCommand({ stdin, signals: new EventEmitter() });
  const code = await runCli(['run', ...options, '--', fixture(program), marker], {
    env: cleanEnv(),
    cwd: here,
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    commands: COMMANDS.map((c) => (c.name === 'run' ? command : c)),
  });
  return { code, stdout, stderr, marker };
}

/** Pids of live processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const sortedLines = (text: string) => text.split('\n').filter((l) => l !== '').sort();
/** The launcher's own lines (ranks' stderr may hold their messages too). */
const launcherLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('dapl run: '));

describe('dapl run with real ranks', () => {
  it('4 ranks print their lines, get the same fresh job key, provider, config and arguments; exit 0', async () => {
    const r = await runJob(['-n', '4', '--provider', 'tcp', '--config', 'fixtures/project/dapl.config.json'], 'hello.mjs');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = sortedLines(r.stdout);
    expect(lines.filter((l) => l.startsWith('rank '))).toEqual(['rank 0 of 4', 'rank 1 of 4', 'rank 2 of 4', 'rank 3 of 4']);
    const envLines = lines.filter((l) => l.startsWith('env '));
    const keys = new Set(envLines.map((l) => /key=(\S+)/.exec(l)![1]));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f]{64}$/);
    const config = join(here, 'fixtures', 'project', 'dapl.config.json');
    for (const l of envLines) expect(l).toMatch(new RegExp(`provider=tcp config=${config} args=${r.marker}$`));
    expect(processesWith(r.marker)).toEqual([]);
  });

  it('--tag-output prefixes every line with [rank]; a last line without newline is flushed (a program that never uses PMI)', async () => {
    const r = await runJob(['-n', '3', '--tag-output'], 'no-pmi.mjs');
    expect(r.code).toBe(0);
    expect(sortedLines(r.stdout)).toEqual(['[0] no newline from 0', '[0] plain rank 0', '[1] no newline from 1', '[1] plain rank 1', '[2] no newline from 2', '[2] plain rank 2']);
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('ranks exchange values through the KVS', async () => {
    const r = await runJob(['-n', '3'], 'kvs-neighbour.mjs');
    expect(r.code).toBe(0);
    expect(sortedLines(r.stdout)).toEqual(['rank 0 got hello-from-1', 'rank 1 got hello-from-2', 'rank 2 got hello-from-0']);
  });

  it('rank 1 exits 3: exit 3, one line naming it, the others (one ignoring SIGTERM, so SIGKILLed) stopped, no orphan', async () => {
    // That this takes at most 1.25 s after the exit (PMI drain wait + grace) is checked on a manual clock in launcher-job.test.ts.
    const r = await runJob(['-n', '3'], 'rank1-exits-3.mjs');
    expect(r.code).toBe(3);
    const lines = launcherLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dapl run: rank 1 exited with code 3 after \d+\.\d\d s; stopping the other 2 ranks$/);
    expect(r.stdout).toContain('ignoring SIGTERM');
    expect(processesWith(r.marker)).toEqual([]);
  });

  it('rank 2 is killed by SIGKILL: exit 137, the line names SIGKILL, no orphan', async () => {
    const r = await runJob(['-n', '3'], 'rank2-kills-itself.mjs');
    expect(r.code).toBe(137);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 2 was killed by SIGKILL after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    expect(processesWith(r.marker)).toEqual([]);
  });

  it("rank 1 calls abort(7, 'why'): exit 7, the line names the abort, no orphan", async () => {
    const r = await runJob(['-n', '3'], 'rank1-aborts.mjs');
    expect(r.code).toBe(7);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 called abort with code 7 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    expect(r.stderr).toContain('why');
    expect(processesWith(r.marker)).toEqual([]);
  });

  it('a rank that breaks the PMI protocol ends the job with exit 5 and one line', async () => {
    const r = await runJob(['-n', '2'], 'breaks-protocol.mjs');
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^dapl run: rank 1 broke the PMI protocol \(rank 1 sent an unknown PMI command "cmd=make_coffee sugar=2"\) after \d+\.\d\d s; stopping the other rank\n$/);
    expect(processesWith(r.marker)).toEqual([]);
  });

  it('a rank that leaves PMI without finalize and exits 0 ends the job (1)', async () => {
    const r = await runJob(['-n', '2'], 'leaves-without-finalize.mjs');
    expect(r.code).toBe(1);
    expect(launcherLines(r.stderr)).toEqual([
      expect.stringMatching(/^dapl run: rank 1 closed its PMI connection without finalize and exited with code 0 after \d+\.\d\d s; stopping the other rank$/),
    ]);
    expect(processesWith(r.marker)).toEqual([]);
  });

  it("stdin goes to rank 0 only", async () => {
    const stdin = new PassThrough();
    stdin.end('first line\nsecond line\n');
    const r = await runJob(['-n', '2', '--tag-output'], 'echo-stdin.mjs', stdin);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('[0]'))).toEqual(['[0] rank 0 read: first line', '[0] rank 0 read: second line', '[0] rank 0 reached the end of its stdin']);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('[1]'))).toEqual(['[1] rank 1 reached the end of its stdin']);
  });

  it('--timeout ends a job that never finishes: exit 124, no orphan', async () => {
    const r = await runJob(['-n', '2', '--timeout', '1.5'], 'forever.mjs');
    expect(r.code).toBe(124);
    const [first, ...report] = r.stderr.trimEnd().split('\n');
    expect(first).toBe('dapl run: the job did not finish within --timeout 1.5 s; stopping the 2 running ranks');
    // What each rank waits in: neither declares a wait. On a loaded host a rank may not have reached
    // PMI (nor printed) by the deadline: the timeout is the mechanism under test, not the ranks' speed.
    for (const line of report) expect(line).toMatch(/^dapl run: rank [01] (declares no wait|did not answer within 1 s)/);
    for (const line of sortedLines(r.stdout)) expect(['rank 0 ready', 'rank 1 ready']).toContain(line);
    expect(processesWith(r.marker)).toEqual([]);
  });
});

describe('the dapl executable', () => {
  it('forwards its stdin to rank 0 and exits 0', async () => {
    const r = await runBin(['-n', '2', fixture('echo-stdin.mjs')], { stdin: 'from the pipe\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('rank 0 read: from the pipe\n');
    expect(r.stdout).not.toContain('rank 1 read');
  });

  it('SIGTERM to dapl run is forwarded to the ranks: exit 143, no orphan', async () => {
    const marker = `marker-${randomUUID()}`;
    const r = await runBin(['-n', '2', fixture('forever.mjs'), marker], { signalWhenReady: { signal: 'SIGTERM', readyLines: 2 } });
    expect(r.code).toBe(143);
    // Both ranks had printed "ready" (after PMI init) before the signal: each answers what it waits in.
    expect(r.stderr).toMatch(/^dapl run: received SIGTERM after \d+\.\d\d s; forwarding it to the 2 running ranks\n(dapl run: rank [01] declares no wait \(running, or blocked in something that does not declare its waits\)\n){2}$/);
    expect(processesWith(marker)).toEqual([]);
  });
});

interface BinOptions {
  readonly stdin?: string;
  /** Send `signal` to the launcher once its stdout has this many lines. */
  readonly signalWhenReady?: { readonly signal: NodeJS.Signals; readonly readyLines: number };
}

function runBin(runArgs: string[], options: BinOptions): Promise<Omit<Run, 'marker'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'run', ...runArgs], { cwd: here, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const limit = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dapl run ${runArgs.join(' ')} did not end within 120 s`));
    }, 120_000);
    let stdout = '';
    let stderr = '';
    let signalled = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const ready = options.signalWhenReady;
      if (ready !== undefined && !signalled && stdout.split('\n').length > ready.readyLines) {
        signalled = true;
        child.kill(ready.signal);
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(options.stdin ?? '');
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      resolve({ code: code ?? (signal === null ? -1 : 128), stdout, stderr });
    });
  });
}
