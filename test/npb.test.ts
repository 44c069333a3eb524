// NAS Parallel Benchmarks (examples/npb) on every provider: IS and EP class S on 1, 2, 4 and 8 ranks
// and class W on 4, CG, MG and FT class S on 1, 2 and 4 ranks (class W once each), must print NPB's result block
// with `Verification = SUCCESSFUL` (official verification values); CG, MG and FT refuse a number of
// ranks that is not a power of two.
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';

const LAUNCH: [string, string[]][] = [
  ['tcp (ranks in one process)', ['--in-process', '--provider', 'tcp']],
  ['ib', ['--provider', 'ib']],
  ['lapi', ['--provider', 'lapi']],
  ['combuf', ['--provider', 'combuf']],
];

// Each job takes a few seconds of CPU; a loaded host stretches that several times.
const JOB_TIMEOUT = 240_000;

const KERNELS = [
  ['cg', 'CG'],
  ['mg', 'MG'],
  ['ft', 'FT'],
] as const;

async function verified(args: string[], name: string, cls: string, ranks: number, env: Record<string, string> = {}): Promise<void> {
  const ran = await daplRun(args, env, 240_000);
  expect(ran.stderr, ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain(` ${name} Benchmark Completed.`);
  expect(ran.stdout).toMatch(new RegExp(`^ Class += +${cls}$`, 'm'));
  expect(ran.stdout).toMatch(new RegExp(` Total processes = +${ranks}\\n`));
  expect(ran.stdout).toMatch(/^ Verification += +SUCCESSFUL$/m);
  // Simulated providers report virtual time, which the kernels' arithmetic does not advance.
  const provider = args.includes('--provider') ? args[args.indexOf('--provider') + 1] : 'tcp';
  const simulated = !['tcp', 'shm'].includes(provider);
  expect(ran.stdout).toMatch(simulated ? /^ Time measured += +virtual, comm\. only$/m : /^ Time measured += +wall clock$/m);
}

describe.each(LAUNCH)('NPB on %s', (_name, launch) => {
  // Class S on every rank count exercises each decomposition; class W, the same communication
  // with more arithmetic, once per provider.
  it.each([1, 2, 4, 8])('IS and EP class S verify on %i ranks', async (n) => {
    await verified(['-n', String(n), ...launch, 'examples/npb/is.mjs', 'S'], 'IS', 'S', n);
    await verified(['-n', String(n), ...launch, 'examples/npb/ep.mjs', 'S'], 'EP', 'S', n);
  }, JOB_TIMEOUT);

  it('IS and EP class W verify on 4 ranks', async () => {
    await verified(['-n', '4', ...launch, 'examples/npb/is.mjs', 'W'], 'IS', 'W', 4);
    await verified(['-n', '4', ...launch, 'examples/npb/ep.mjs', 'W'], 'EP', 'W', 4);
  }, JOB_TIMEOUT);

  it.each([1, 2, 4])('CG, MG and FT class S verify on %i ranks', async (n) => {
    for (const [file, name] of KERNELS) await verified(['-n', String(n), ...launch, `examples/npb/${file}.mjs`, 'S'], name, 'S', n);
  }, JOB_TIMEOUT);
});

describe('NPB CG, MG and FT beyond the matrix', () => {
  it.each(KERNELS)('%s class W verifies on 4 ranks of ib', async (file, name) => {
    await verified(['-n', '4', '--provider', 'ib', `examples/npb/${file}.mjs`, 'W'], name, 'W', 4);
  }, JOB_TIMEOUT);

  it('refuse 3 ranks and an unknown class with a usage message and exit code 2', async () => {
    const threeRanks = await daplRun(['-n', '3', '--provider', 'ib', 'examples/npb/ft.mjs', 'S'], {}, 60_000);
    expect(threeRanks.code).toBe(2);
    expect(threeRanks.stderr).toContain('usage: ft.mjs [S|W|A] on a power-of-two number of ranks: class S runs on 1, 2, 4, … 64 ranks, got 3');
    expect(threeRanks.stdout).not.toContain('Benchmark Completed');
    const unknownClass = await daplRun(['-n', '2', '--provider', 'ib', 'examples/npb/mg.mjs', 'Q'], {}, 60_000);
    expect(unknownClass.code).toBe(2);
    expect(unknownClass.stderr).toContain('usage: mg.mjs [S|W|A] on a power-of-two number of ranks: unknown class Q');
  }, JOB_TIMEOUT);
});

describe('NPB on shm (ranks as worker threads)', () => {
  it('IS classes S and W on 4 ranks, EP classes S and W on 2', async () => {
    await verified(['-n', '4', '--provider', 'shm', 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4);
    await verified(['-n', '4', '--provider', 'shm', 'examples/npb/is.mjs', 'W'], 'IS', 'W', 4);
    await verified(['-n', '2', '--provider', 'shm', 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2);
    await verified(['-n', '2', '--provider', 'shm', 'examples/npb/ep.mjs', 'W'], 'EP', 'W', 2);
  }, 480_000);

  it('CG, MG and FT class S on 4 ranks', async () => {
    for (const [file, name] of KERNELS) await verified(['-n', '4', '--provider', 'shm', `examples/npb/${file}.mjs`, 'S'], name, 'S', 4);
  }, 480_000);
});

describe('NPB over tcp with one process per rank', () => {
  it('IS class S on 4 processes and EP class S on 2', async () => {
    await Promise.all([verified(['-n', '4', 'examples/npb/is.mjs', 'S'], 'IS', 'S', 4), verified(['-n', '2', 'examples/npb/ep.mjs', 'S'], 'EP', 'S', 2)]);
  }, JOB_TIMEOUT);

  it('CG, MG and FT class S on 4 processes', async () => {
    for (const [file, name] of KERNELS) await verified(['-n', '4', `examples/npb/${file}.mjs`, 'S'], name, 'S', 4);
  }, JOB_TIMEOUT);
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
