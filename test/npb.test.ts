// NAS Parallel Benchmarks IS and EP (examples/npb) on every provider: classes S and W on 1, 2, 4 and 8
// ranks must print NPB's result block with `Verification = SUCCESSFUL` (official verification values).
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';

const LAUNCH: [string, string[]][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp']],
  ['ib', ['--provider', 'ib']],
  ['lapi', ['--provider', 'lapi']],
  ['combuf', ['--provider', 'combuf']],
];

async function verified(args: string[], name: string, cls: string, ranks: number, env: Record<string, string> = {}): Promise<void> {
  const ran = await daplRun(args, env, 240_000);
  expect(ran.stderr, ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain(` ${name} Benchmark Completed.`);
  expect(ran.stdout).toMatch(new RegExp(`^ Class += +${cls}$`, 'm'));
  expect(ran.stdout).toMatch(new RegExp(` Total processes = +${ranks}\\n`));
  expect(ran.stdout).toMatch(/^ Verification += +SUCCESSFUL$/m);
}

describe.each(LAUNCH)('NPB on %s', (_name, launch) => {
  it.each([1, 2, 4, 8])('IS classes S and W verify on %i ranks', async (n) => {
    await verified(['-n', String(n), ...launch, 'examples/npb/is.mjs', 'S'], 'IS', 'S', n);
    await verified(['-n', String(n), ...launch, 'examples/npb/is.mjs', 'W'], 'IS', 'W', n);
  });

  it.each([1, 2, 4, 8])('EP classes S and W verify on %i ranks', async (n) => {
    await verified(['-n', String(n), ...launch, 'examples/npb/ep.mjs', 'S'], 'EP', 'S', n);
    await verified(['-n', String(n), ...launch, 'examples/npb/ep.mjs', 'W'], 'EP', 'W', n);
  });
});

describe('NPB on shm (ranks as worker threads)', () => {
  it('IS classes S and W on 4 ranks, EP classes S and W on 2', async () => {
    await verified(['-n', '4', '--provider', 'shm', 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4);
    await verified(['-n', '4', '--provider', 'shm', 'examples/npb/is.mjs', 'W'], 'IS', 'W', 4);
    await verified(['-n', '2', '--provider', 'shm', 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2);
    await verified(['-n', '2', '--provider', 'shm', 'examples/npb/ep.mjs', 'W'], 'EP', 'W', 2);
  }, 480_000);
});

describe('NPB over tcp with one process per rank', () => {
  it('IS class S on 4 processes and EP class S on 2', async () => {
    await Promise.all([verified(['-n', '4', 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4), verified(['-n', '2', 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2)]);
  });
});

describe.each([...LAUNCH, ['tcp (one process per rank)', []] as [string, string[]]])('NPB on the channel device on %s', (_name, launch) => {
  const channel = { DAPL_MPI_DEVICE: 'channel' };
  it('IS class S on 4 ranks and EP class S on 2 verify', async () => {
    await Promise.all([verified(['-n', '4', ...launch, 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4, channel), verified(['-n', '2', ...launch, 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2, channel)]);
  }, 240_000);
});

describe.each([['base'], ['counters'], ['enhanced']])('NPB on the am device (%s) on lapi', (variant) => {
  const am = { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: variant };
  it('IS class S on 4 ranks and EP class S on 2 verify', async () => {
    const lapi = ['--provider', 'lapi'];
    await Promise.all([verified(['-n', '4', ...lapi, 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4, am), verified(['-n', '2', ...lapi, 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2, am)]);
  }, 240_000);
});
