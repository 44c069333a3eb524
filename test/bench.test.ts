// The MPI benchmarks run as written (each launches itself with `dapl run`) and print their figures in
// the documented format; bad options exit 2 naming the option. Figures are checked for shape, never
// for speed: performance is judged by running the benchmarks, not by tests.
import { describe, expect, it } from 'vitest';
import { nodeRun } from './support/dapl-run.js';

/** A benchmark as written: `node bench/...`, which launches its own job. */
const bench = (args: readonly string[]) => nodeRun(args, { DAPL_PROVIDER: undefined }, 120_000);

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

describe('bench/window-timeline.mjs', () => {
  it('cuts the window into stages that add up to it, MPI beside DAT, in virtual time', async () => {
    const ran = await bench(['bench/window-timeline.mjs', '--provider', 'ib', '--size', '65536', '--blocks', '2', '--windows', '4']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# window-timeline \(dapl\.ts @dapl\/mpi, device rdma, provider ib, virtual time\): 65536 B, window 64, 2 block pairs of 4 windows/m);
    const row = (name: string) => {
      const m = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+(-?[0-9.]+)\\s+(-?[0-9.]+|-)\\s+(-?[0-9.]+|-)$`, 'm').exec(ran.stdout);
      expect(m, `${name}\n${ran.stdout}`).not.toBeNull();
      return m!.slice(1).map(Number);
    };
    const [mpiWindow, datWindow, excess] = row('window');
    const stages = ['1 sender posts the window', '2 last post -> every message seen', '3 acknowledgement sent (the call)', '4 call returned -> sender sees it', '5 sender sees it -> next first post'].map(row);
    // Virtual time repeats every window exactly, so the stages' medians add up to the window's.
    expect(Math.abs(stages.reduce((t, r) => t + r[0], 0) - mpiWindow)).toBeLessThan(0.5);
    expect(Math.abs(stages.reduce((t, r) => t + r[1], 0) - datWindow)).toBeLessThan(0.5);
    expect(Math.abs(excess - (mpiWindow - datWindow))).toBeLessThan(0.15);
    expect(mpiWindow).toBeGreaterThan(0);
    // Only MPI posts its receives per window.
    const off = row('  off the path: next receives posted');
    expect(off[0]).toBeGreaterThan(0);
    expect(Number.isNaN(off[1])).toBe(true);
  });

  it('answers a bad option with exit 2 and names it, and prints its usage with --help', async () => {
    await expectRefused(['bench/window-timeline.mjs', '--windows', '1'], "--windows must be an integer >= 2, got '1'");
    await expectRefused(['bench/window-timeline.mjs', '--warmup', 'soon'], "--warmup must be a number of seconds from 0 to 600, got 'soon'");
    const ran = await bench(['bench/window-timeline.mjs', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: node bench\/window-timeline\.mjs/);
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

  it("prints the nonblocking tests in OSU's format: overall, compute, pure communication time and overlap per size, in virtual time", async () => {
    const ran = await bench(['bench/osu.mjs', '--provider', 'lapi', '-n', '4', '--only', 'iallreduce,ibcast,ialltoall', '--max-size', '64', '--min-size', '16']);
    expect(ran.code, ran.stderr).toBe(0);
    for (const name of ['Allreduce', 'Broadcast', 'All-to-All']) {
      expect(ran.stdout).toMatch(new RegExp(`^# OSU MPI Non-blocking ${name} Latency Test \\(dapl\\.ts @dapl/mpi, provider lapi, virtual time, 4 ranks, compute in 10 yielding steps\\)$`, 'm'));
    }
    const rows = [...ran.stdout.matchAll(new RegExp(`^(16|32|64)${NUMBER.repeat(4)}$`, 'gm'))];
    expect(rows, ran.stdout).toHaveLength(9);
    for (const row of rows) {
      const [overall, compute, pure, overlap] = row.slice(2).map(Number);
      expect(pure).toBeGreaterThan(0);
      expect(compute).toBeGreaterThanOrEqual(pure * 0.99); // the compute is as long as the pure communication
      expect(overall).toBeGreaterThanOrEqual(compute);
      expect(overlap).toBeCloseTo(Math.max(0, 100 - (100 * (overall - compute)) / pure), 0);
    }
  });

  it('answers a bad option with exit 2 and names it', async () => {
    await expectRefused(['bench/osu.mjs', '--steps=0'], "--steps must be an integer >= 1, got '0'");
    await expectRefused(['bench/osu.mjs', '--warmup=-1'], "--warmup must be a number of seconds from 0 to 600, got '-1'");
    await expectRefused(['bench/osu.mjs', '--window=0'], "--window must be an integer >= 1, got '0'");
    await expectRefused(['bench/osu.mjs', '--bogus'], "Unknown option '--bogus'");
    // One rank would run nothing and print nothing: refused, not an empty success.
    await expectRefused(['bench/osu.mjs', '-n', '1'], "--ranks must be at least 2 (-n N; -np N also works)");
  });

  it('reads -np N as -n N, as MPICH and Open MPI users type it', async () => {
    const ran = await bench(['bench/osu.mjs', '--provider', 'ib', '-np', '3', '--only', 'barrier', '--quick']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# OSU MPI Barrier Latency Test \(dapl\.ts @dapl\/mpi, provider ib, virtual time, 3 ranks\)$/m);
  });

  it('prints its usage with --help, the warm-up among the options', async () => {
    const ran = await bench(['bench/osu.mjs', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: node bench\/osu\.mjs/);
    expect(ran.stdout).toMatch(/^ {2}--warmup S +at the first size of each test/m);
  });
});

describe('bench/mpi-lapi.mjs', () => {
  it('prints one-way time and bandwidth of raw LAPI and MPI on the am device (base, counters, enhanced) and the channel device, a row per size, and the paper\'s statements beside them', async () => {
    const ran = await nodeRun(['bench/mpi-lapi.mjs', '--sizes', '8,8192', '--reps', '2', '--window', '2'], { DAPL_PROVIDER: undefined }, 120_000);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# Size +LAPI +Base +Counters +Enhanced +channel$/m);
    for (const size of [8, 8192]) expect(ran.stdout.match(new RegExp(`^${size}${NUMBER.repeat(5)}$`, 'gm'))).toHaveLength(2);
    for (const fig of ['Fig. 13', 'Fig. 14', 'Fig. 15', 'Fig. 16']) expect(ran.stdout).toContain(`#  ${fig} `);
  }, 120_000);

  it('refuses a bad size, exit 2', async () => {
    await expectRefused(['bench/mpi-lapi.mjs', '--sizes', '8,x'], 'mpi-lapi: --sizes must be non-negative integers');
  });
});

describe('bench/npb-phases.mjs', () => {
  it('prints a row per collective call of IS across the ranks, in the order the first rank entered them, and a total per collective', async () => {
    const ran = await bench(['bench/npb-phases.mjs', '--provider', 'lapi', '--kernel', 'is', '-n', '4']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# NPB IS class S on 4 ranks, provider lapi/m);
    const rows = [...ran.stdout.matchAll(/^ {2}(\w+) +(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)$/gm)].map((m) => ({ name: m[1], call: Number(m[2]), first: Number(m[3]), span: Number(m[4]), spread: Number(m[5]) }));
    // IS ranks its keys once untimed and then 10 times, each with an allreduce, an alltoall and an alltoallv.
    for (const name of ['allreduce', 'alltoall', 'alltoallv']) {
      const calls = rows.filter((r) => r.name === name);
      expect(calls.map((r) => r.call)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
      for (const r of calls) expect(r.span).toBeGreaterThan(r.spread);
    }
    const firsts = rows.map((r) => r.first);
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    expect(ran.stdout).toMatch(/^ {2}alltoallv +11\s+[0-9.]+$/m);
  }, 120_000);

  it('prints only the collectives --only names', async () => {
    const ran = await bench(['bench/npb-phases.mjs', '--kernel', 'is', '--only', 'alltoallv']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^ {2}alltoallv +1\s/m);
    expect(ran.stdout).not.toMatch(/^ {2}allreduce /m);
  }, 120_000);

  it('answers a bad option with exit 2 and names it, and prints its usage with --help', async () => {
    await expectRefused(['bench/npb-phases.mjs', '--provider', 'tcp'], "--provider must be a simulated provider (ib, lapi, combuf), got 'tcp'");
    await expectRefused(['bench/npb-phases.mjs', '--kernel', 'lu'], "--kernel must be one of is, ep, cg, mg, ft, got 'lu'");
    await expectRefused(['bench/npb-phases.mjs', '--only', 'alltoall,sendrecv'], "--only must list collectives of");
    const ran = await bench(['bench/npb-phases.mjs', '--help']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^usage: node bench\/npb-phases\.mjs/);
  });
});

describe('bench/netpipe.mjs', () => {
  it('prints a NetPIPE row (Mbit/s and usec) per size for raw TCP, DAT, MPI channel at both eager limits, MPI rdma and the blocking channel, over tcp between two processes', async () => {
    const ran = await nodeRun(['bench/netpipe.mjs', '--max', '64', '--rounds', '1', '--quick'], { DAPL_PROVIDER: undefined }, 120_000);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^# +bytes +raw TCP Mbps +usec +DAT Mbps +usec +MPI channel Mbps +usec +channel 512K Mbps +usec +MPI rdma Mbps +usec +channel block Mbps +usec$/m);
    // NetPIPE's sizes up to 64 B in --quick: every fourth, from 1.
    const rows = ran.stdout.split('\n').filter((l) => /^ +\d+ /.test(l));
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(row).toMatch(new RegExp(`^ +\\d+${NUMBER.repeat(12)}$`));
  }, 120_000);

  it('--json gives the medians and, per MPI column and DAT, the median of the ratios paired with raw TCP rounds', async () => {
    const ran = await nodeRun(['bench/netpipe.mjs', '--max', '16', '--rounds', '1', '--quick', '--json'], { DAPL_PROVIDER: undefined }, 120_000);
    expect(ran.code, ran.stderr).toBe(0);
    const result = JSON.parse(ran.stdout) as Record<string, unknown> & { sizes: number[] };
    expect(result).toMatchObject({ rounds: 1, bigRounds: 9 });
    for (const key of ['raw', 'dat', 'channel', 'channel512', 'rdma', 'blocking']) expect((result[key] as { size: number }[]).map((r) => r.size)).toEqual(result.sizes);
    for (const key of ['dat', 'channel', 'channel512', 'rdma', 'blocking']) {
      for (const r of result[`ratio:${key}`] as { ratio: number }[]) expect(r.ratio).toBeGreaterThan(0);
    }
  }, 120_000);

  it('refuses a bad --rounds or --big-rounds, exit 2', async () => {
    await expectRefused(['bench/netpipe.mjs', '--rounds', '0'], 'netpipe: --rounds must be an integer >= 1');
    await expectRefused(['bench/netpipe.mjs', '--big-rounds', 'x'], 'netpipe: --big-rounds must be an integer >= 1');
  });
});
