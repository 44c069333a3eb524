// `dapl run` and whoever reads its output: a slow reader gets every line, a reader that goes away
// stops the job (141, as SIGPIPE ends a pipeline), and a hangup reaches the ranks (129); and a rank
// whose PMI socket closes with a reset is judged as any other.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root } from './support/dapl-run.js';

const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const LINES = 'test/fixtures/lines.mjs';

function start(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, DAPL_JOB_KEY: undefined };
  for (const key of Object.keys(env)) if (key.startsWith('PMI_')) env[key] = undefined;
  return spawn(process.execPath, [dapl, 'run', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

async function exitOf(child: ReturnType<typeof start>, withinMs: number): Promise<number | null> {
  const timer = setTimeout(() => child.kill('SIGKILL'), withinMs);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return signal === 'SIGKILL' ? null : code;
}

describe('dapl run and its output', () => {
  it('a reader that waits 3 s before reading still gets every line of every rank', async () => {
    const child = start(['-n', '2', LINES, '50000']);
    child.stdout.pause();
    await new Promise((r) => setTimeout(r, 3000));
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stdout.resume();
    expect(await exitOf(child, 30_000)).toBe(0);
    expect(lines).toBe(100_000);
  });

  it('a reader that goes away after two lines stops the job: exit 141, no rank left behind', async () => {
    const child = start(['-n', '2', LINES, '200000', 'hold']);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    expect(String(first)).toMatch(/^rank \d line 0 /);
    child.stdout.destroy();
    // Rank 1 would hold for 20 s: the job ends long before.
    expect(await exitOf(child, 10_000)).toBe(141);
    expect(stderr).toMatch(/dapl run: received SIGPIPE after [0-9.]+ s; forwarding it to the \d running ranks?/);
  });

  it('SIGHUP to dapl run reaches the ranks (their own process groups miss a terminal hangup): exit 129', async () => {
    const child = start(['-n', '2', LINES, '1', 'hold']);
    await once(child.stdout, 'data');
    child.kill('SIGHUP');
    expect(await exitOf(child, 10_000)).toBe(129);
  });
});

describe('dapl run judging a rank', () => {
  it('a rank that spoke PMI and exits 0 without finalize is lost even when its PMI socket closes with a reset', async () => {
    const child = start(['-n', '1', 'test/fixtures/pmi-reset.mjs']);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
    expect(await exitOf(child, 10_000)).toBe(1);
    expect(stderr).toMatch(/^dapl run: rank 0 closed its PMI connection without finalize and exited with code 0 after [0-9.]+ s\n$/);
  });
});
