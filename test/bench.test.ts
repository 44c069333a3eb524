// The MPI benchmarks run as written (each launches itself with `dapl run`) and print their figures in
// the documented format; bad options exit 2 naming the option. Figures are checked for shape, never
// for speed: performance is judged by running the benchmarks, not by tests.
import { describe, expect, it } from 'vitest';
import { nodeRun } from './support/dapl-run.js';

/** A benchmark as written: `node bench/...`, which launches its own job. */
const bench = (args: readonly string[]) => nodeRun(args, { DAPL_PROVIDER: undefined }, 60_000);

const NUMBER = String.raw`\s+([0-9.]+)`;

/** The benchmark refuses `args` with exit 2 and `message` on stderr. */
async function expectRefused(args: readonly string[], message: string): Promise<void> {
  const ran = await bench(args);
  expect(ran.code, ran.stderr).toBe(2);
  expect(ran.stderr).toContain(message);
}

describe('bench/stream-window.mjs', () => {
  it('measures MPI and DAT windows side by side on a simulated provider, a row per size', async () => {
    const ran = await bench(['bench/stream-window.mjs', '--provider', 'ib', '--sizes', '65536,1024', '--blocks', '3', '--windows', '2', '--warmup', '0']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# stream-window \(dapl\.ts @dapl\/mpi, device rdma, provider ib\): window 64, 3 block pairs of 2 windows/m);
    expect(ran.stdout).toMatch(/^# Size .* isends0 +irecvs1 +DATw us ratio w$/m);
    for (const size of [65536, 1024]) {
      const row = new RegExp(`^${size}${NUMBER.repeat(3)}\\s+(\\d+\\.\\d+)-(\\d+\\.\\d+)${NUMBER.repeat(8)}$`, 'm').exec(ran.stdout);
      expect(row, ran.stdout).not.toBeNull();
      const [mpiUs, datUs, ratio, q1, q3] = row!.slice(1, 6).map(Number);
      // ib writes with immediate: the DAT write stream ran too, its ratio is its time over MPI's.
      const [writeUs, ratioW] = row!.slice(12, 14).map(Number);
      expect(writeUs).toBeGreaterThan(0);
      expect(Math.abs(ratioW - writeUs / mpiUs)).toBeLessThan(0.2);
      // The quartiles of the pairs' ratios bracket their median.
      expect(q1).toBeLessThanOrEqual(ratio);
      expect(q3).toBeGreaterThanOrEqual(ratio);
      expect(mpiUs).toBeGreaterThan(0);
      expect(datUs).toBeGreaterThan(0);
      // The ratio is DAT time over MPI time (bandwidth MPI / DAT), up to the printed rounding.
      expect(Math.abs(ratio - datUs / mpiUs)).toBeLessThan(0.2);
    }
  });

  it('answers a bad option with exit 2 and names it', async () => {
    await expectRefused(['bench/stream-window.mjs', '--window', '0'], "--window must be an integer >= 1, got '0'");
    await expectRefused(['bench/stream-window.mjs', '--sizes', '64k'], "--sizes must list byte counts >= 0, got '64k'");
    await expectRefused(['bench/stream-window.mjs', '--skip=x'], "--skip must be an integer >= 0, got 'x'");
    await expectRefused(['bench/stream-window.mjs', '--bogus'], "Unknown option '--bogus'");
  });

  it('prints its usage with --help', async () => {
    const ran = await bench(['bench/stream-window.mjs', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: node bench\/stream-window\.mjs/);
  });
});

describe('bench/osu.mjs', () => {
  it('prints osu_bw with the DAT figure and the ratio beside each size', async () => {
    const ran = await bench(['bench/osu.mjs', '--provider', 'ib', '--only', 'bw', '--min-size', '65536', '--max-size', '131072']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# OSU MPI Bandwidth Test \(dapl\.ts @dapl\/mpi, device rdma, provider ib, virtual time\)$/m);
    for (const size of [65536, 131072]) {
      const row = new RegExp(`^${size}${NUMBER.repeat(3)}$`, 'm').exec(ran.stdout);
      expect(row, ran.stdout).not.toBeNull();
      const [mpi, dat, ratio] = row!.slice(1).map(Number);
      expect(mpi).toBeGreaterThan(0);
      expect(Math.abs(ratio - mpi / dat)).toBeLessThan(0.01);
    }
  });

  it('runs point to point beside the collectives on more than two ranks (ranks 2.. take part in the DAT pair\'s start)', async () => {
    const ran = await bench(['bench/osu.mjs', '--provider', 'lapi', '-n', '4', '--only', 'latency,barrier', '--max-size', '8']);
    expect(ran.code, ran.stderr).toBe(0);
    for (const size of [1, 2, 4, 8]) expect(ran.stdout).toMatch(new RegExp(`^${size}${NUMBER.repeat(3)}$`, 'm'));
    expect(ran.stdout).toMatch(/^# OSU MPI Barrier Latency Test \(dapl\.ts @dapl\/mpi, provider lapi, virtual time, 4 ranks\)$/m);
    expect(ran.stdout).toMatch(/^\s+[0-9.]+$/m);
  });

  it('answers a bad option with exit 2 and names it', async () => {
    await expectRefused(['bench/osu.mjs', '--warmup=-1'], "--warmup must be a number of seconds from 0 to 600, got '-1'");
    await expectRefused(['bench/osu.mjs', '--window=0'], "--window must be an integer >= 1, got '0'");
    await expectRefused(['bench/osu.mjs', '--bogus'], "Unknown option '--bogus'");
  });

  it('prints its usage with --help, the warm-up among the options', async () => {
    const ran = await bench(['bench/osu.mjs', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: node bench\/osu\.mjs/);
    expect(ran.stdout).toMatch(/^ {2}--warmup S +at the first size of each test/m);
  });
});
