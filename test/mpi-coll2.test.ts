// MPI collectives beyond MPI-1 on every provider (issue 30, part B): MPI-3 nonblocking collectives
// (each against its blocking counterpart, one at a time and all outstanding at once, progress while
// the program computes), collectives with a datatype per side, alltoallw and Op.reduceLocal, and
// intercommunicators (test/fixtures/mpi/coll2.mjs), with their bad input.
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';
import { passed } from './support/mpi-jobs.js';

const KILL_AFTER_MS = 120_000;
const FIXTURE = 'test/fixtures/mpi/coll2.mjs';

const LINES: Record<string, RegExp> = {
  nonblocking: /^rank \d+: nonblocking collectives ok \(289 checks\)$/,
  twotypes: /^rank \d+: two-datatype collectives ok \(16 checks\)$/,
  inter: /^rank \d+: intercommunicators ok \(28 checks\)$/,
  errors: /^rank \d+: coll2 errors ok \(33 cases\)$/,
};

async function expectMode(launch: readonly string[], n: number, mode: string): Promise<void> {
  const lines = passed(await daplRun(['-n', String(n), ...launch, FIXTURE, mode], {}, KILL_AFTER_MS));
  expect(lines).toHaveLength(n);
  for (const line of lines) expect(line).toMatch(LINES[mode]);
}

const TITLES: Record<string, string> = {
  nonblocking:
    'every nonblocking collective equals its blocking counterpart on world, a split communicator and self (zero counts, IN_PLACE, roots, a non-commutative op), one at a time and all outstanding at once beside a blocking collective and user traffic; they complete while the program only computes and tests',
  twotypes: 'a datatype per side (INT32s gathered into a column type, IN_PLACE and zero counts with two types, v-forms into a strided type), alltoallw with a type per block and IN_PLACE, Op.reduceLocal',
  inter:
    'intercommunicators of unequal sizes and of one rank against the rest: point-to-point across (ANY_SOURCE too), barrier, bcast and reduce with ROOT / PROC_NULL roots (non-commutative, zero count), allreduce, allgather with two types, alltoall, merge in both orders',
  errors: 'bad input for the new calls (33 cases), each a typed MpiError naming the argument, the job usable after each',
};

/** [provider, launch, ranks, modes]: unequal intercommunicator groups and non-powers of two everywhere; tcp as processes for a subset. */
const MATRIX: [string, string[], number, string[]][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp'], 3, ['nonblocking', 'twotypes', 'inter', 'errors']],
  ['tcp (one process per rank)', [], 4, ['nonblocking', 'inter']],
  ['ib', ['--provider', 'ib'], 8, ['nonblocking', 'twotypes', 'inter', 'errors']],
  ['lapi', ['--provider', 'lapi'], 5, ['nonblocking', 'inter']],
  ['combuf', ['--provider', 'combuf'], 4, ['nonblocking', 'twotypes', 'inter', 'errors']],
  ['shm (worker threads)', ['--provider', 'shm'], 3, ['nonblocking', 'twotypes', 'inter']],
];

describe.each(MATRIX)('MPI collectives beyond MPI-1 on %s', (_name, launch, n, modes) => {
  it.each(modes.map((mode) => [mode, TITLES[mode]]))(`${n} ranks, %s: %s`, async (mode) => expectMode(launch, n, mode), KILL_AFTER_MS);
});
