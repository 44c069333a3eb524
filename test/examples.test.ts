// The DAT examples run as written: as a singleton under plain node, under `dapl run`, and under
// MPICH's Hydra (mpiexec.mpich), which must print the same results as `dapl run`.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const ring = 'examples/dat-ring.mjs';
const hello = 'examples/dat-hello.mjs';
const pingpong = 'examples/mpi-pingpong.mjs';

const mpiexec = spawnSync('mpiexec.mpich', ['--version'], { encoding: 'utf8' });
const haveHydra = mpiexec.status === 0;
// CI installs MPICH (.ci/run): there, a missing mpiexec is a failure, not a skip.
const hydraRequired = process.env.CI === 'true';

async function output(cmd: string, args: string[]): Promise<string[]> {
  const { stdout } = await run(cmd, args, { cwd: root, timeout: 120_000, env: { ...process.env, DAPL_JOB_KEY: undefined } });
  return stdout.trim().split('\n').sort();
}

describe('examples', () => {
  it('dat-ring runs as a job of size 1 under plain node', async () => {
    expect(await output(process.execPath, [ring, '5'])).toEqual(['dat-ring: 1 rank, 5 laps, token 5 (expected 5): OK', 'rank 0 of 1: passed the token 5 times']);
  });

  it('dat-ring runs with dapl run -n 4', async () => {
    const lines = await output(process.execPath, [dapl, 'run', '-n', '4', ring, '5']);
    expect(lines).toContain('dat-ring: 4 ranks, 5 laps, token 50 (expected 50): OK');
    expect(lines.filter((l) => /^rank \d of 4: passed the token 5 times$/.test(l))).toHaveLength(4);
  });

  it('dat-hello: every rank names its right-hand neighbour', async () => {
    const lines = await output(process.execPath, [dapl, 'run', '-n', '3', hello]);
    expect(lines).toHaveLength(3);
    for (let r = 0; r < 3; r++) expect(lines[r]).toMatch(new RegExp(`^rank ${r} of 3: provider tcp, my IA at \\S+, rank ${(r + 1) % 3}'s IA at \\S+$`));
  });

  it.runIf(haveHydra || hydraRequired)("under MPICH's mpiexec (Hydra, PMI-1) dat-ring prints what dapl run prints", async () => {
    expect(haveHydra, 'mpiexec.mpich is not installed (apt-get install mpich)').toBe(true);
    const viaHydra = await output('mpiexec.mpich', ['-n', '4', process.execPath, ring, '7']);
    const viaDapl = await output(process.execPath, [dapl, 'run', '-n', '4', ring, '7']);
    expect(viaHydra).toEqual(viaDapl);
    expect(viaHydra).toContain('dat-ring: 4 ranks, 7 laps, token 70 (expected 70): OK');
  });

  // The title says whether the mpiexec step runs: without mpiexec (and outside CI, where its absence
  // fails) the step is left out, and the title must not claim it.
  const underMpiexec = haveHydra || hydraRequired ? ', and under mpiexec with the same results' : ' (mpiexec.mpich not installed: its step not run)';
  it(`mpi-pingpong runs as a job of size 1, with dapl run over tcp and on ib${underMpiexec}`, async () => {
    const pairs = (lines: string[]) => lines.map((l) => l.replace(/round trip [0-9.]+ us/, 'round trip T us'));
    const single = await output(process.execPath, [pingpong]);
    expect(pairs(single)).toEqual(['mpi-pingpong: 1 rank on tcp: OK', 'rank 0 <-> rank 0: 5 sizes ok, 1 MiB round trip T us']);
    const [tcp, ib] = await Promise.all([output(process.execPath, [dapl, 'run', '-n', '3', pingpong]), output(process.execPath, [dapl, 'run', '-n', '3', '--provider', 'ib', pingpong])]);
    const expected = ['mpi-pingpong: 3 ranks on tcp: OK', 'rank 0 <-> rank 1: 5 sizes ok, 1 MiB round trip T us', 'rank 0 <-> rank 2: 5 sizes ok, 1 MiB round trip T us'];
    expect(pairs(tcp)).toEqual(expected);
    expect(pairs(ib)).toEqual(expected.map((l) => l.replace('on tcp', 'on ib')));
    if (haveHydra || hydraRequired) {
      expect(haveHydra, 'mpiexec.mpich is not installed (apt-get install mpich)').toBe(true);
      expect(pairs(await output('mpiexec.mpich', ['-n', '3', process.execPath, pingpong]))).toEqual(expected);
    }
  });

  it('on shm (ranks as worker threads) dat-ring and mpi-pingpong print what they print with processes', async () => {
    const [ring4, pp3] = await Promise.all([output(process.execPath, [dapl, 'run', '-n', '4', '--provider', 'shm', ring, '5']), output(process.execPath, [dapl, 'run', '-n', '3', '--provider', 'shm', pingpong])]);
    expect(ring4).toContain('dat-ring: 4 ranks, 5 laps, token 50 (expected 50): OK');
    expect(ring4.filter((l) => /^rank \d of 4: passed the token 5 times$/.test(l))).toHaveLength(4);
    expect(pp3.map((l) => l.replace(/round trip [0-9.]+ us/, 'round trip T us'))).toEqual([
      'mpi-pingpong: 3 ranks on shm: OK',
      'rank 0 <-> rank 1: 5 sizes ok, 1 MiB round trip T us',
      'rank 0 <-> rank 2: 5 sizes ok, 1 MiB round trip T us',
    ]);
  });

  it('shm is refused with a clear message where the ranks are not threads of one process (processes under Hydra; dapl run --in-process)', async () => {
    const refusal = /the shm provider needs every rank of the job as a worker thread of one process/;
    const inProcess = await run(process.execPath, [dapl, 'run', '-n', '2', '--in-process', '--provider', 'shm', ring, '1'], { cwd: root, timeout: 60_000 }).catch((e: { code: number; stderr: string }) => e);
    expect((inProcess as { code: number }).code).not.toBe(0);
    expect((inProcess as { stderr: string }).stderr).toMatch(refusal);
    if (haveHydra || hydraRequired) {
      const env = { ...process.env, DAPL_JOB_KEY: undefined, DAPL_PROVIDER: 'shm' };
      const hydra = await run('mpiexec.mpich', ['-n', '2', process.execPath, ring, '1'], { cwd: root, timeout: 60_000, env }).catch((e: { code: number; stderr: string }) => e);
      expect((hydra as { code: number }).code).not.toBe(0);
      expect((hydra as { stderr: string }).stderr).toMatch(refusal);
    }
  });
});
