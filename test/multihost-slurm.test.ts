// Jobs under Slurm with PMI-2 (`srun --mpi=pmi2`): slurmctld here and one slurmd in each of two
// namespace hosts (test/support/slurm-cluster.sh, notes/multi-host.md). On one node the ranks listen on
// loopback; across nodes each listens on its node's address, and the process mapping says which ranks
// share a node. Ranks of one node killed mid-job end the step on the other.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from './support/dapl-run.js';
import { commandOf, describeHosts, expectSpreadOverHosts, launch, missingPrerequisite, requiredByCi, whenTrue, whereLines, knock, readyLines } from './support/netns.js';

const clusterScript = fileURLToPath(new URL('./support/slurm-cluster.sh', import.meta.url));
const missing = missingPrerequisite(['srun', 'sinfo', 'slurmctld', 'slurmd', 'munged']);
const run = missing === undefined || requiredByCi;
const TAG = 'dsl';
const NET = '10.231.3';

describe.runIf(run)(`jobs under srun --mpi=pmi2 on namespace nodes${missing === undefined ? '' : ` (${missing})`}`, () => {
  let dir: string;
  /** A cluster .ci/run started (MULTIHOST_SLURM_DIR, made by slurm-cluster.sh with the same hosts), or this file's own. */
  const shared = process.env.MULTIHOST_SLURM_DIR;
  const hosts = describeHosts(TAG, 2, NET);
  beforeAll(() => {
    expect(missing, 'prerequisite').toBeUndefined();
    if (shared !== undefined && shared !== '') {
      dir = shared;
      return;
    }
    dir = mkdtempSync(join(tmpdir(), 'dapl-slurm-'));
    execFileSync(clusterScript, ['up', dir, TAG, '2', NET], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
  }, 90_000);
  afterAll(() => {
    if (dir === undefined || dir === shared) return;
    execFileSync(clusterScript, ['down', dir, TAG, '2'], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  const srun = (args: string[], program: string) => launch('srun', ['--mpi=pmi2', ...args, process.execPath, program], { SLURM_CONF: join(dir, 'slurm.conf') });

  it('on one node: an MPI program runs with PMI-2, its ranks on loopback, both in the process mapping', async () => {
    const ran = await srun(['-w', `${TAG}1`, '-N1', '-n2'], 'test/fixtures/multihost/mpi-hosts.mjs').done;
    expect(ran.code, ran.stderr).toBe(0);
    const lines = whereLines(ran.stdout);
    expect(lines.map((l) => [l.host, l.listen, l.local, [...l.peers.values()]])).toEqual([
      [`${TAG}1`, '127.0.0.1', '0+1', ['127.0.0.1']],
      [`${TAG}1`, '127.0.0.1', '0+1', ['127.0.0.1']],
    ]);
  }, 120_000);

  it('across two nodes: MPI and FMPL programs, each rank on its node\'s address', async () => {
    const [mpi, fmpl] = [
      await srun(['-w', `${TAG}1,${TAG}2`, '-N2', '-n4'], 'test/fixtures/multihost/mpi-hosts.mjs').done,
      await srun(['-w', `${TAG}1,${TAG}2`, '-N2', '-n4'], 'test/fixtures/multihost/fmpl-hosts.mjs').done,
    ];
    expect(mpi.code, mpi.stderr).toBe(0);
    expect(fmpl.code, fmpl.stderr).toBe(0);
    // Slurm's block distribution: ranks 0-1 on the first node, 2-3 on the second.
    for (const [ran, what] of [[mpi, 'mpi'], [fmpl, 'fmpl']] as const) {
      expect(expectSpreadOverHosts(ran.stdout, 4, hosts, what)).toEqual([`${TAG}1`, `${TAG}1`, `${TAG}2`, `${TAG}2`]);
      expect(whereLines(ran.stdout).map((l) => l.local)).toEqual(['0+1', '0+1', '2+3', '2+3']);
    }
  }, 120_000);

  it('a batch job (sbatch --wait, the script docs/multi-host.md shows) runs srun --mpi=pmi2 across both nodes', async () => {
    const script = join(dir, `batch-${process.pid}.sh`);
    const output = join(dir, `batch-${process.pid}.out`);
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        '#SBATCH --job-name=dapl-app',
        '#SBATCH --nodes=2',
        '#SBATCH --ntasks-per-node=2',
        '#SBATCH --time=00:05:00',
        `#SBATCH --output=${output}`,
        `cd ${root}`,
        `srun --mpi=pmi2 --kill-on-bad-exit=1 ${process.execPath} test/fixtures/multihost/mpi-hosts.mjs`,
        '',
      ].join('\n'),
    );
    const batch = await launch('sbatch', ['--wait', script], { SLURM_CONF: join(dir, 'slurm.conf') }).done;
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stdout).toMatch(/^Submitted batch job \d+$/m);
    const out = readFileSync(output, 'utf8');
    expect(expectSpreadOverHosts(out, 4, hosts, 'mpi')).toEqual([`${TAG}1`, `${TAG}1`, `${TAG}2`, `${TAG}2`]);
  }, 120_000);

  it('when every rank on one node is killed mid-job, the step ends on the other within 2 s with srun\'s report and a non-zero status', async () => {
    const job = srun(['-w', `${TAG}1,${TAG}2`, '-N2', '-n4', '--kill-on-bad-exit=1'], 'test/fixtures/multihost/linger.mjs');
    await job.waitFor(/^rank \d: ready /, 4);
    // A foreign process knocking on rank 2's PSP (on dsl2) is dropped; the step goes on.
    const [pspAddress, pspPort] = readyLines(job.stdout())[2].psp.split('#');
    expect(pspAddress).toBe(hosts.address[`${TAG}2`]);
    expect((await knock(pspAddress, Number(pspPort), 'not the job\'s handshake\n'.repeat(4))).closedByPeer).toBe(true);
    expect(job.stdout()).not.toMatch(/rank \d: (?!ready)/);
    const killedAt = performance.now();
    // The ranks only: slurmd stays, as a node whose job crashed.
    expect(hosts.killHost(`${TAG}2`, 'node')).toBe(2);
    const ended = await job.done;
    expect(ended.code).not.toBe(0);
    // srun reports the node's tasks together when the kill reaches both; one that saw the other's
    // connection break first ends with its own error before the signal reaches it (task 3: Exited).
    expect(ended.stderr).toMatch(/^srun: error: dsl2: (tasks 2-3|task 2|task 3): Killed$/m);
    const survivorsGone = await whenTrue(() => !hosts.pids(`${TAG}1`).some((pid) => commandOf(pid) === 'node'));
    process.stdout.write(`slurm: the step ended ${(ended.endedAtMs - killedAt).toFixed(0)} ms after the ranks on dsl2 were killed (status ${ended.code})\n`);
    expect(survivorsGone - killedAt, 'no rank is left on dsl1 within 2 s').toBeLessThan(2000);
  }, 120_000);
});
