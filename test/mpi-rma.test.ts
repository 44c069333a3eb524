// MPI one-sided communication on every provider (issue 28): the same programs
// (test/fixtures/mpi/rma-*.mjs) over tcp with the ranks in one process, over tcp as processes (a
// subset), and on the simulated ib, lapi and combuf machines. Each checks the data it moved and the
// errors it got and prints one line per rank that passed; a failed check exits non-zero naming it.
import { describe, expect, it } from 'vitest';
import { daplRun, nodeRun } from './support/dapl-run.js';
import { fixture, passed, ranks } from './support/mpi-jobs.js';

/** How a provider's jobs are launched, and the paths its operations take beside direct RDMA (lapi: active messages). */
const PROVIDERS: Readonly<Record<string, readonly [readonly string[], string]>> = {
  'tcp (ranks in one process)': [['--in-process', '--provider', 'tcp'], 'empty, messages, rdma-direct'],
  ib: [['--provider', 'ib'], 'empty, messages, rdma-direct'],
  lapi: [['--provider', 'lapi'], 'active-messages, empty, rdma-direct'],
  combuf: [['--provider', 'combuf'], 'empty, messages, rdma-direct'],
  'shm (worker threads)': [['--provider', 'shm'], 'empty, messages, rdma-direct'],
};

const KILL_AFTER_MS = 110_000;
const JOB_TIMEOUT = 120_000;

/** Direct RDMA serves the contiguous transfers (every provider here has RDMA read and write), messages or active messages the rest. */
const TRANSFERS = (checks: number, paths = 'empty, messages, rdma-direct') => `transfers ok (${checks} checks; paths ${paths})`;

describe.each(Object.entries(PROVIDERS))('MPI one-sided communication on %s', (_name, [launch, paths]) => {
  const run = (n: number, program: string, args: string[] = []) => daplRun(['-n', String(n), ...launch, fixture(program), ...args], {}, KILL_AFTER_MS);

  it(
    'put, get and accumulate from 0 B to 4 MiB (2 ranks) and to 64 KiB (4 ranks), contents checked; derived types on either side; fetches, request forms, every flush',
    async () => {
      const [two, four] = await Promise.all([run(2, 'rma-transfers'), run(4, 'rma-transfers', ['65536'])]);
      expect(passed(two)).toEqual(ranks(2, () => TRANSFERS(68, paths)));
      expect(passed(four)).toEqual(ranks(4, () => TRANSFERS(56, paths)));
    },
    JOB_TIMEOUT,
  );

  it(
    'every synchronisation mode: exact sums under fence and shared locks, exclusive contention, PSCW on subsets, a lock held while the target computes, fetchAndOp tickets, a compareAndSwap spin lock (4 ranks); 47 bad inputs typed, lying origins refused; a lock waiting on a lost peer fails (3 ranks)',
    async () => {
      const [sync, errors, lost] = await Promise.all([run(4, 'rma-sync'), run(3, 'rma-errors'), run(3, 'rma-lost')]);
      expect(passed(sync)).toEqual(ranks(4, () => 'synchronisation ok'));
      expect(passed(errors)).toEqual(ranks(3, () => 'errors ok (47 cases)'));
      expect(passed(lost)).toEqual(ranks(3, () => 'lost peer ok'));
    },
    JOB_TIMEOUT,
  );
});

describe('MPI one-sided communication on tcp with one process per rank, and at 16 ranks', () => {
  it(
    'transfers to 64 KiB (2 processes), synchronisation (3 processes), errors (2 processes)',
    async () => {
      const [transfers, sync, errors] = await Promise.all([
        daplRun(['-n', '2', fixture('rma-transfers'), '65536'], {}, KILL_AFTER_MS),
        daplRun(['-n', '3', fixture('rma-sync')], {}, KILL_AFTER_MS),
        daplRun(['-n', '2', fixture('rma-errors')], {}, KILL_AFTER_MS),
      ]);
      expect(passed(transfers)).toEqual(ranks(2, () => TRANSFERS(56)));
      expect(passed(sync)).toEqual(ranks(3, () => 'synchronisation ok'));
      expect(passed(errors)).toEqual(ranks(2, () => 'errors ok (47 cases)'));
    },
    JOB_TIMEOUT,
  );

  it.each([['ib'], ['combuf']])(
    'synchronisation with 16 ranks on %s (k = 3)',
    async (provider) => {
      expect(passed(await daplRun(['-n', '16', '--provider', provider, fixture('rma-sync'), '3'], {}, KILL_AFTER_MS))).toEqual(ranks(16, () => 'synchronisation ok'));
    },
    JOB_TIMEOUT,
  );
});

describe('examples/mpi-rma.mjs and bench/osu-rma.mjs', () => {
  it(
    'the README example: neighbours by put, the sum of ranks by accumulate, unique tickets by fetchAndOp (4 processes on tcp, and on ib)',
    async () => {
      for (const ran of await Promise.all([daplRun(['-n', '4', 'examples/mpi-rma.mjs'], {}, KILL_AFTER_MS), daplRun(['-n', '4', '--provider', 'ib', 'examples/mpi-rma.mjs'], {}, KILL_AFTER_MS)])) {
        const lines = passed(ran);
        expect(lines.map((l) => l.replace(/, ticket \d/, ''))).toEqual(['rank 0: left neighbour 3, sum of ranks 6', 'rank 1: left neighbour 0', 'rank 2: left neighbour 1', 'rank 3: left neighbour 2']);
        expect(lines.map((l) => /ticket (\d)/.exec(l)![1]).sort()).toEqual(['0', '1', '2', '3']);
      }
    },
    JOB_TIMEOUT,
  );

  it(
    'osu-rma on ib in virtual time: OSU rows beside DAT for put, get and accumulate under PSCW, and the 8-byte figures beside the uDAPL paper\'s',
    async () => {
      const ran = await nodeRun(['bench/osu-rma.mjs', '--provider', 'ib', '--sync', 'pscw', '--only', 'put_latency,get_latency,acc_latency', '--max-size', '8'], {}, KILL_AFTER_MS);
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain('# OSU MPI_Put Latency (dapl.ts @dapl/mpi, provider ib, virtual time, sync pscw)');
      expect(ran.stdout).toMatch(/^8 +\d+\.\d\d +\d+\.\d\d +\d+\.\d\d$/m);
      for (const [op, paper] of [['put', '8.9'], ['get', '20.5'], ['acc', '8.9']]) expect(ran.stdout).toMatch(new RegExp(`^${op} +${paper.replace('.', '\\.')} +\\d+\\.\\d$`, 'm'));
    },
    JOB_TIMEOUT,
  );

  it('osu-rma refuses a bad --sync and an unknown test, exit 2', async () => {
    const [sync, only] = await Promise.all([nodeRun(['bench/osu-rma.mjs', '--sync', 'sometimes']), nodeRun(['bench/osu-rma.mjs', '--only', 'put_rate'])]);
    expect(sync).toMatchObject({ code: 2, stdout: '' });
    expect(sync.stderr).toContain("--sync must be one of lock, flush, fence, pscw, got 'sometimes'");
    expect(only).toMatchObject({ code: 2, stdout: '' });
    expect(only.stderr).toContain("--only must list tests among");
  });
});

