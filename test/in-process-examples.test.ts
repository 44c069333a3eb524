// The DAT examples as an in-process job over the real tcp provider (`dapl run --in-process`): the
// ranks are async tasks of one Node process, and they print what the same job prints as processes.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const ring = 'examples/dat-ring.mjs';
const hello = 'examples/dat-hello.mjs';
const wiring = 'test/fixtures/wiring.mjs';

async function lines(args: string[]): Promise<string[]> {
  const { stdout, stderr } = await run(process.execPath, [dapl, 'run', ...args], { cwd: root, timeout: 120_000, env: { ...process.env, DAPL_JOB_KEY: undefined } });
  expect(stderr).toBe('');
  return stdout.trim().split('\n').sort();
}

describe('in-process jobs over tcp', () => {
  it('dat-ring -n 4 prints what it prints with processes', async () => {
    const [inProcess, processes] = await Promise.all([lines(['--in-process', '-n', '4', ring, '5']), lines(['-n', '4', ring, '5'])]);
    expect(inProcess).toEqual(processes);
    expect(inProcess).toContain('dat-ring: 4 ranks, 5 laps, token 50 (expected 50): OK');
    expect(inProcess.filter((l) => /^rank \d of 4: passed the token 5 times$/.test(l))).toHaveLength(4);
  });

  it('dat-hello -n 3 --tag-output prints what it prints with processes', async () => {
    const [inProcess, processes] = await Promise.all([lines(['--in-process', '-n', '3', '--tag-output', hello]), lines(['-n', '3', '--tag-output', hello])]);
    expect(inProcess).toEqual(processes);
    expect(inProcess).toHaveLength(3);
    for (let r = 0; r < 3; r++) expect(inProcess[r]).toMatch(new RegExp(`^\\[${r}\\] rank ${r} of 3: provider tcp, my IA at \\S+, rank ${(r + 1) % 3}'s IA at \\S+$`));
  });

  it('8 ranks in one process wire on demand as 8 processes do: all-to-all opens one connection per pair', async () => {
    const counts = await lines(['--in-process', '-n', '8', '--timeout', '60', wiring, 'all']);
    expect(counts).toEqual(Array.from({ length: 8 }, (_, r) => `rank ${r} connections 7`));
  });
});
