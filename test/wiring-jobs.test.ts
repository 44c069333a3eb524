// On-demand wiring in real multi-process jobs (dapl run -n 8 over tcp): ring traffic opens at
// most two connections per rank; all-to-all opens exactly 28, one per pair.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const program = fileURLToPath(new URL('./fixtures/wiring.mjs', import.meta.url));

async function connectionCounts(pattern: 'ring' | 'all'): Promise<number[]> {
  const { stdout } = await run(process.execPath, [dapl, 'run', '-n', '8', '--timeout', '60', program, pattern], { timeout: 90_000 });
  const counts: number[] = [];
  for (const line of stdout.trim().split('\n')) {
    const m = /^rank (\d) connections (\d+)$/.exec(line);
    expect(m, line).not.toBeNull();
    counts[Number(m![1])] = Number(m![2]);
  }
  expect(counts).toHaveLength(8);
  return counts;
}

describe('on-demand wiring in an 8-process job', () => {
  it('ring neighbours only: at most 2 connections per rank', async () => {
    const counts = await connectionCounts('ring');
    for (const c of counts) expect(c).toBeLessThanOrEqual(2);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(16);
  });

  it('all to all, both ends of every pair connecting at once: 28 connections, one per pair', async () => {
    const counts = await connectionCounts('all');
    expect(counts).toEqual(new Array(8).fill(7));
    expect(counts.reduce((a, b) => a + b, 0) / 2).toBe(28);
  });
});
