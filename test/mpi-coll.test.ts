// MPI collectives on every provider (issue 6): the reference suite (test/fixtures/mpi/collectives.mjs:
// every collective against a one-rank computation, sizes 0 to 1 MiB, every root, world and a split
// communicator) for 1 to 16 ranks, concurrency, bad input, and the hardware paths on combuf.
import { describe, expect, it } from 'vitest';
import { daplRun, sortedLines, type Ran } from './support/dapl-run.js';

const KILL_AFTER_MS = 120_000;
/** Job-sized: a job is killed (and the test fails saying so) before vitest would give up on it. */
const JOB_MS = KILL_AFTER_MS + 30_000;
const fixture = (name: string) => `test/fixtures/mpi/${name}.mjs`;

function passed(ran: Ran): string[] {
  expect(ran.stderr, ran.stderr).toBe('');
  expect(ran.killed).toBe(false);
  expect(ran.code).toBe(0);
  return sortedLines(ran.stdout);
}

/** Every rank passed the reference suite on both communicators. */
function expectSuitePassed(ran: Ran, n: number): void {
  const lines = passed(ran);
  expect(lines).toHaveLength(n);
  for (const line of lines) expect(line).toMatch(/^rank \d+: collectives ok \(\d+ checks, hw barriers \d+, hw bcasts \d+\)$/);
}

/** [ranks, quick] per launch: non-powers of two and 16 everywhere; quick trims the largest sizes. */
const MATRIX: [string, string[], [number, boolean][]][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp'], [[1, false], [3, false], [7, false], [16, true]]],
  ['ib', ['--provider', 'ib'], [[2, false], [8, false], [16, true]]],
  ['lapi', ['--provider', 'lapi'], [[5, false], [16, true]]],
  ['combuf', ['--provider', 'combuf'], [[4, false], [16, false]]],
  ['shm (worker threads)', ['--provider', 'shm'], [[3, true], [4, false]]],
];

describe.each(MATRIX)('MPI collectives on %s', { timeout: 120_000 }, (_name, launch, sizes) => {
  it.each(sizes)('%i ranks: every collective matches the one-rank reference (quick: %s)', async (n, quick) => {
    expectSuitePassed(await daplRun(['-n', String(n), ...launch, fixture('collectives'), ...(quick ? ['quick'] : [])], {}, KILL_AFTER_MS), n);
  }, JOB_MS);
});

/** The channel device at fewer ranks (a non-power of two everywhere), every provider. */
const CHANNEL_MATRIX: [string, string[], number][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp'], 3],
  ['ib', ['--provider', 'ib'], 5],
  ['lapi', ['--provider', 'lapi'], 3],
  ['combuf', ['--provider', 'combuf'], 6],
];

describe.each(CHANNEL_MATRIX)('MPI collectives on the channel device on %s', (_name, launch, n) => {
  it(`${n} ranks: every collective matches the one-rank reference (quick)`, async () => {
    expectSuitePassed(await daplRun(['-n', String(n), ...launch, fixture('collectives'), 'quick'], { DAPL_MPI_DEVICE: 'channel' }, KILL_AFTER_MS), n);
  }, 120_000);
});

describe.each([['base', 3], ['counters', 4], ['enhanced', 5]] as const)('MPI collectives on the am device (%s) on lapi', (variant, n) => {
  it(`${n} ranks: every collective matches the one-rank reference (quick)`, async () => {
    expectSuitePassed(await daplRun(['-n', String(n), '--provider', 'lapi', fixture('collectives'), 'quick'], { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: variant }, KILL_AFTER_MS), n);
  }, 120_000);
});

/** The rdma device's per-peer eager pool (the shared receive queue is the default above) still passes the suite. */
const PER_PEER_MATRIX: [string, string[], number][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp'], 7],
  ['tcp (one process per rank)', [], 4],
  ['ib', ['--provider', 'ib'], 8],
];

describe.each(PER_PEER_MATRIX)('MPI collectives with mpi.eagerPool=per-peer on %s', (_name, launch, n) => {
  it(`${n} ranks: every collective matches the one-rank reference (quick)`, async () => {
    expectSuitePassed(await daplRun(['-n', String(n), ...launch, fixture('collectives'), 'quick'], { DAPL_MPI_EAGER_POOL: 'per-peer' }, KILL_AFTER_MS), n);
  }, JOB_MS);
});

describe('MPI collectives, more', { timeout: JOB_MS }, () => {
  it('over tcp with one process per rank (4 processes)', async () => {
    expectSuitePassed(await daplRun(['-n', '4', fixture('collectives'), 'quick'], {}, KILL_AFTER_MS), 4);
  });

  it.each([['tcp', ['--in-process']], ['combuf', ['--provider', 'combuf']]])(
    'two collectives in flight on different communicators, with user traffic on the same tags, do not disturb each other (%s, 5 ranks)',
    async (_p, launch) => {
      const lines = passed(await daplRun(['-n', '5', ...launch, fixture('coll-extras'), 'concurrent'], {}, KILL_AFTER_MS));
      expect(lines).toEqual(Array.from({ length: 5 }, (_, r) => `rank ${r}: concurrent collectives ok`));
    },
  );

  it.each([['tcp', ['--in-process'], 3], ['ib', ['--provider', 'ib'], 6]] as const)(
    'bad input (%s, launched %j with %i ranks): 19 cases, each a typed error, the job usable after each (also after a gatherv whose root block did not fit); a non-commutative op keeps rank order',
    async (_p, launch, n) => {
      const lines = passed(await daplRun(['-n', String(n), ...launch, fixture('coll-extras'), 'errors'], {}, KILL_AFTER_MS));
      expect(lines).toEqual(Array.from({ length: n }, (_, r) => `rank ${r}: collective errors ok (19 cases)`));
    },
  );

  it.each([['tcp', ['--in-process'], 3], ['ib', ['--provider', 'ib'], 5], ['combuf', ['--provider', 'combuf'], 4]] as const)(
    'edges (%s, launched %j with %i ranks): IN_PLACE alltoall and alltoallv with a struct of swapped blocks and a resized type; an empty allgatherv block placed past the data; scatterv into larger receive buffers',
    async (_p, launch, n) => {
      const lines = passed(await daplRun(['-n', String(n), ...launch, fixture('coll-extras'), 'edges'], {}, KILL_AFTER_MS));
      expect(lines).toEqual(Array.from({ length: n }, (_, r) => `rank ${r}: collective edges ok`));
    },
  );

  it('combuf, 8 ranks in a row: barrier and bcast take the hardware path, faster in virtual time than forced software', async () => {
    const parse = (ran: Ran) => {
      const line = passed(ran)[0];
      const m = /^rank 0: barrier ([0-9.]+) us, bcast 64 KiB ([0-9.]+) us; hw barriers (\d+), sw barriers (\d+), hw bcasts (\d+), sw bcasts (\d+)$/.exec(line);
      expect(m, line).not.toBeNull();
      return m!.slice(1).map(Number);
    };
    const [hw, sw] = await Promise.all([
      daplRun(['-n', '8', '--provider', 'combuf', fixture('coll-extras'), 'timing'], {}, KILL_AFTER_MS),
      daplRun(['-n', '8', '--provider', 'combuf', fixture('coll-extras'), 'timing'], { DAPL_MPI_COLLECTIVES: 'software' }, KILL_AFTER_MS),
    ]);
    const [hwBarrier, hwBcast, hwB, swB, hwC, swC] = parse(hw);
    const [swBarrier, swBcast, hwB2, swB2, hwC2, swC2] = parse(sw);
    expect([hwB, swB, hwC, swC]).toEqual([22, 0, 20, 0]);
    expect([hwB2, swB2, hwC2, swC2]).toEqual([0, 22, 0, 20]);
    expect(hwBarrier).toBe(8); // Tatebe et al. §5.2: 8 µs, whatever the number of nodes
    expect(hwBarrier).toBeLessThan(swBarrier);
    expect(hwBcast).toBeLessThan(swBcast);
  });

  it("combuf: a group the hardware cannot serve falls back to software with the same results; 'hardware' forced there is an error", async () => {
    // 16 ranks on the 8-wide crossbar: world is a rectangle (hardware), the even ranks are not (software).
    const ran = await daplRun(['-n', '16', '--provider', 'combuf', fixture('collectives'), 'quick'], {}, KILL_AFTER_MS);
    expectSuitePassed(ran, 16);
    const counts = passed(ran).map((l) => /hw barriers (\d+), hw bcasts (\d+)/.exec(l)!.slice(1).map(Number));
    for (const [barriers] of counts) expect(barriers).toBe(1); // world only: the split halves are not usable
    const forced = await daplRun(['-n', '3', '--provider', 'ib', fixture('coll-extras'), 'timing'], { DAPL_MPI_COLLECTIVES: 'hardware' }, KILL_AFTER_MS);
    expect(forced.code).not.toBe(0);
    expect(forced.stderr).toContain("mpi.collectives is 'hardware' but provider ib has no hw-collectives");
  });
});
