// FMPL (issue 7) on every provider: the suite program (test/fixtures/fmpl/suite.mjs) — every call,
// sizes 0 B to 1 MiB (16 MiB on combuf), zero- and one-copy paths counted, timeout to one copy,
// sendbufCheck counts, the wildcard index, the two domains kept apart, commCreate groups, collectives
// on every root, typed errors — for 1 to 16 ranks; where operations meet (test/fixtures/fmpl/
// concurrency.mjs); the examples; hardware against software paths.
import { describe, expect, it } from 'vitest';
import { daplRun, sortedLines, type Ran } from './support/dapl-run.js';

const suite = 'test/fixtures/fmpl/suite.mjs';

function ok(ran: Ran, n: number): number[][] {
  expect(ran.stderr, ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  const lines = sortedLines(ran.stdout);
  expect(lines).toHaveLength(n);
  return lines.map((l) => {
    const m = /^rank \d+: fmpl ok \((\d+) checks; zero-copy (\d+), one-copy (\d+), hw barriers (\d+), hw bcasts (\d+)\)$/.exec(l);
    expect(m, l).not.toBeNull();
    return m!.slice(1).map(Number);
  });
}

/** [ranks, with 16 MiB messages] per launch. */
const MATRIX: [string, string[], [number, boolean][]][] = [
  ['tcp (ranks in one process)', ['--in-process'], [[1, false], [2, true], [5, false]]],
  ['ib', ['--provider', 'ib'], [[2, true], [3, false], [16, false]]],
  ['lapi', ['--provider', 'lapi'], [[2, true], [4, false]]],
  ['combuf', ['--provider', 'combuf'], [[2, true], [7, false]]],
  ['shm (worker threads)', ['--provider', 'shm'], [[2, false], [5, false]]],
];

describe.each(MATRIX)('FMPL on %s', { timeout: 120_000 }, (_name, launch, sizes) => {
  it.each(sizes)('%i ranks: the whole suite (16 MiB pairs: %s)', async (n, big) => {
    const counts = ok(await daplRun(['-n', String(n), ...launch, suite, ...(big ? ['big'] : [])], {}, 120_000), n);
    if (n >= 2) {
      // Ranks 0 and 1 both sent zero-copy; rank 0 sent once by one copy (after the 1 ms timeout).
      expect(counts[0][1]).toBeGreaterThan(0);
      expect(counts[0][2]).toBeGreaterThanOrEqual(1);
    }
  });
});

describe.each(MATRIX)('FMPL where operations meet, on %s', { timeout: 120_000 }, (_name, launch) => {
  it('4 ranks: a wildcard receive beside a collective, broadcasts on two communicators at once, a truncated send_any, spooled sends that fail', async () => {
    const ran = await daplRun(['-n', '4', ...launch, 'test/fixtures/fmpl/concurrency.mjs'], {}, 120_000);
    expect(ran.stderr, ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(sortedLines(ran.stdout).map((l) => l.replace(/\(\d+ checks\)/, ''))).toEqual([0, 1, 2, 3].map((r) => `rank ${r}: concurrency ok `));
  });
});

describe('FMPL, more', () => {
  it('16 ranks on combuf with 16 MiB pairs: hardware barrier and broadcast on world, software on the even ranks', async () => {
    const counts = ok(await daplRun(['-n', '16', '--provider', 'combuf', suite, 'big'], {}, 120_000), 16);
    for (const [, , , hwBarriers, hwBcasts] of counts) {
      expect(hwBarriers).toBeGreaterThan(0);
      expect(hwBcasts).toBeGreaterThan(0);
    }
  });

  it('over tcp with one process per rank (2 processes), and the examples run as written', async () => {
    const [suiteRun, pingpong, bcast] = await Promise.all([
      daplRun(['-n', '2', suite], {}, 120_000),
      daplRun(['-n', '2', 'examples/fmpl-pingpong.mjs']),
      daplRun(['-n', '16', '--provider', 'combuf', 'examples/fmpl-bcast.mjs']),
    ]);
    ok(suiteRun, 2);
    expect(pingpong.code, pingpong.stderr).toBe(0);
    expect(pingpong.stdout).toMatch(/^fmpl-pingpong: 1 B ok, [0-9.]+ us one way on tcp \(mean of 2000\)$/m);
    expect(pingpong.stdout).toMatch(/^fmpl-pingpong: 1048576 B ok, [0-9.]+ us one way on tcp \(mean of 20\)$/m);
    expect(bcast.code, bcast.stderr).toBe(0);
    expect(bcast.stdout).toMatch(/^fmpl-bcast: 8192 B from each of 16 roots ok, [0-9.]+ us each on combuf \(hardware\)$/m);
  });

  it('combuf: the hardware barrier and broadcast are faster in virtual time than the software ones', async () => {
    const [hw, sw] = await Promise.all([
      daplRun(['-n', '8', '--provider', 'combuf', 'bench/fmpl.mjs', '--collectives-only']),
      daplRun(['-n', '8', '--provider', 'combuf', 'bench/fmpl.mjs', '--collectives-only', '--software']),
    ]);
    const parse = (ran: Ran) => {
      expect(ran.code, ran.stderr).toBe(0);
      const barrier = Number(/^barrier {2}([0-9.]+) us$/m.exec(ran.stdout)![1]);
      const bcast = Number(/^bcast 8 KB {2}([0-9.]+) us$/m.exec(ran.stdout)![1]);
      return { barrier, bcast };
    };
    const h = parse(hw);
    const s = parse(sw);
    expect(h.barrier).toBe(8);
    expect(h.barrier).toBeLessThan(s.barrier);
    expect(h.bcast).toBeLessThan(s.bcast);
  });
});
