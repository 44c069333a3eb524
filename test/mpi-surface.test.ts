// The MPI surface of issue 30 (part A) on every provider: persistent requests and request arrays
// with nulls, groups and communicator extras, topologies with neighbour collectives, and the
// datatypes beyond MPI-1, as the same programs (test/fixtures/mpi) over tcp with the ranks in one
// process, over tcp as separate processes (a subset) and on the simulated ib, lapi and combuf
// machines. Each program checks the contents it receives and the errors it gets, and prints one
// line per rank that passed; a failed check exits non-zero with the reason.
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';
import { PROVIDERS, fixture, passed, ranks } from './support/mpi-jobs.js';

const KILL_AFTER_MS = 90_000;
const JOB_TIMEOUT_MS = 120_000;

describe.each(Object.entries(PROVIDERS))('MPI standard surface on %s', (_name, launch) => {
  const run = (n: number, program: string) => daplRun(['-n', String(n), ...launch, fixture(program)], {}, KILL_AFTER_MS);

  it(
    'persistent requests in every mode started again and again, inactive ones complete with the empty status, PROC_NULL, zero counts, self; request arrays with nulls; getCount() in the receive type (3 ranks)',
    async () => {
      expect(passed(await run(3, 'persistent'))).toEqual(ranks(3, 'persistent ok (60 checks)'));
    },
    JOB_TIMEOUT_MS,
  );

  it(
    'Cartesian grids (periodic and open edges, sub, dup, 0-d, smaller than the communicator), graph and distributed graph, neighbour collectives, group ranges, Group.EMPTY, compare, splitType (6 ranks)',
    async () => {
      expect(passed(await run(6, 'topology'))).toEqual(ranks(6, 'topology ok'));
    },
    JOB_TIMEOUT_MS,
  );

  it(
    'complex and boolean types in transfers and reductions, subarrays in C and Fortran order, distributed arrays that tile and gather, dup, envelopes and contents (4 ranks)',
    async () => {
      expect(passed(await run(4, 'datatype-surface'))).toEqual(ranks(4, 'datatype surface ok'));
    },
    JOB_TIMEOUT_MS,
  );

  it(
    '55 bad inputs to the new calls give typed errors naming the argument and leave the job usable (3 ranks)',
    async () => {
      expect(passed(await run(3, 'surface-errors'))).toEqual(ranks(3, 'surface errors ok (55 cases)'));
    },
    JOB_TIMEOUT_MS,
  );
});

describe('MPI standard surface on one- and two-rank jobs', () => {
  it(
    'persistent requests and bad input on 1 rank (tcp in one process); topologies on 1 rank (lapi) and 2 (periodic ring of two: one peer in both slots; combuf)',
    async () => {
      const [persistent, errors, one, two] = await Promise.all([
        daplRun(['-n', '1', ...PROVIDERS['tcp (ranks in one process)'], fixture('persistent')], {}, KILL_AFTER_MS),
        daplRun(['-n', '1', ...PROVIDERS['tcp (ranks in one process)'], fixture('surface-errors')], {}, KILL_AFTER_MS),
        daplRun(['-n', '1', ...PROVIDERS.lapi, fixture('topology')], {}, KILL_AFTER_MS),
        daplRun(['-n', '2', ...PROVIDERS.combuf, fixture('topology')], {}, KILL_AFTER_MS),
      ]);
      expect(passed(persistent)).toEqual(ranks(1, 'persistent ok (60 checks)'));
      expect(passed(errors)).toEqual(ranks(1, 'surface errors ok (55 cases)'));
      expect(passed(one)).toEqual(ranks(1, 'topology ok'));
      expect(passed(two)).toEqual(ranks(2, 'topology ok'));
    },
    JOB_TIMEOUT_MS,
  );
});

describe('MPI standard surface on tcp with one process per rank (dapl run)', () => {
  const run = (n: number, program: string) => daplRun(['-n', String(n), fixture(program)], {}, KILL_AFTER_MS);

  it(
    'persistent requests (2 processes), topologies (4), datatypes (3) and bad input (2)',
    async () => {
      const [persistent, topology, datatypes, errors] = await Promise.all([run(2, 'persistent'), run(4, 'topology'), run(3, 'datatype-surface'), run(2, 'surface-errors')]);
      expect(passed(persistent)).toEqual(ranks(2, 'persistent ok (60 checks)'));
      expect(passed(topology)).toEqual(ranks(4, 'topology ok'));
      expect(passed(datatypes)).toEqual(ranks(3, 'datatype surface ok'));
      expect(passed(errors)).toEqual(ranks(2, 'surface errors ok (55 cases)'));
    },
    JOB_TIMEOUT_MS,
  );
});
