// Jobs across hosts under MPICH's Hydra (mpiexec.mpich): two hosts that are network namespaces with
// their own addresses (test/support/netns-hosts.sh), reached through a launcher shim as ssh would
// reach them. MPI and FMPL programs, PMI-1 and PMI-2, and a host that dies mid-job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHosts, expectSpreadOverHosts, launch, missingPrerequisite, netnsLaunch, requiredByCi, whenTrue, whereLines, knock, readyLines, type NetnsHosts } from './support/netns.js';

const missing = missingPrerequisite(['mpiexec.mpich']);
const run = missing === undefined || requiredByCi;

describe.runIf(run)(`jobs across namespace hosts under Hydra${missing === undefined ? '' : ` (${missing})`}`, () => {
  let hosts: NetnsHosts;
  beforeAll(() => {
    expect(missing, 'prerequisite').toBeUndefined();
    hosts = createHosts('dhy', 2, '10.231.1');
  });
  afterAll(() => hosts?.remove());

  const mpiexec = (n: number, program: string, extra: string[] = []): string[] => [
    '-launcher', 'ssh', '-launcher-exec', netnsLaunch, '-localhost', hosts.bridge, '-hosts', hosts.names.join(','), '-n', String(n), ...extra, process.execPath, program,
  ];

  it('an MPI program (PMI-1) and an FMPL program (PMI-2) run on both hosts, each rank on its host\'s address', async () => {
    const [mpi, fmpl] = await Promise.all([
      launch('mpiexec.mpich', mpiexec(4, 'test/fixtures/multihost/mpi-hosts.mjs')).done,
      launch('mpiexec.mpich', mpiexec(4, 'test/fixtures/multihost/fmpl-hosts.mjs', ['-genv', 'DAPL_PMI_VERSION', '2'])).done,
    ]);
    expect(mpi.code, mpi.stderr).toBe(0);
    expect(fmpl.code, fmpl.stderr).toBe(0);
    // Hydra places ranks round robin over the host list.
    expect(expectSpreadOverHosts(mpi.stdout, 4, hosts, 'mpi')).toEqual(['dhy1', 'dhy2', 'dhy1', 'dhy2']);
    expect(expectSpreadOverHosts(fmpl.stdout, 4, hosts, 'fmpl')).toEqual(['dhy1', 'dhy2', 'dhy1', 'dhy2']);
    // The process mapping (PMI-2's job attribute; PMI-1's KVS key under Hydra): the ranks that share each host.
    expect(whereLines(mpi.stdout).map((l) => l.local)).toEqual(['0+2', '1+3', '0+2', '1+3']);
    expect(whereLines(fmpl.stdout).map((l) => l.local)).toEqual(['0+2', '1+3', '0+2', '1+3']);
  }, 120_000);

  it('when every process of one host is killed mid-job, the job ends on the other with Hydra\'s report and a non-zero status', async () => {
    const job = launch('mpiexec.mpich', mpiexec(4, 'test/fixtures/multihost/linger.mjs'));
    await job.waitFor(/^rank \d: ready host=/, 4);
    // A foreign process knocking on rank 1's PSP (on dhy2) is dropped; the job goes on.
    const [pspAddress, pspPort] = readyLines(job.stdout())[1].psp.split('#');
    expect(pspAddress).toBe(hosts.address.dhy2);
    expect((await knock(pspAddress, Number(pspPort), 'not the job\'s handshake\n'.repeat(4))).closedByPeer).toBe(true);
    const before = job.stdout();
    const killedAt = performance.now();
    expect(hosts.killHost('dhy2')).toBeGreaterThanOrEqual(2);
    const ended = await job.done;
    const tookMs = ended.endedAtMs - killedAt;
    expect(ended.code, ended.stderr).not.toBe(0);
    // Hydra's own line: its proxy on the dead host closed the control connection.
    expect(ended.stderr).toMatch(/\[mpiexec@\S+\] .*(assert \(!closed\) failed|BAD TERMINATION)/);
    const survivorsGoneMs = await whenTrue(() => hosts.pids('dhy1').length === 0);
    expect(survivorsGoneMs - killedAt, 'no process of the job is left on dhy1 within 2 s').toBeLessThan(2000);
    expect(ended.stdout).not.toMatch(/nobody stopped the job/);
    expect(before).not.toMatch(/rank \d: (?!ready)/);
    process.stdout.write(`hydra: the job ended ${tookMs.toFixed(0)} ms after host dhy2 was killed (status ${ended.code})\n`);
    expect(tookMs, 'the job ends on the other host within 2 s').toBeLessThan(2000);
  }, 120_000);
});
