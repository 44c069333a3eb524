// `dapl run --hosts/--hostfile --launcher` across two namespace hosts (test/support/netns-hosts.sh):
// MPI and FMPL programs, each rank on its host's address; the PMI port and the ranks' PSPs refuse a
// foreign process without disturbing the job; a host that dies and --timeout end the job everywhere.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createHosts, expectSpreadOverHosts, knock, launch, missingPrerequisite, netnsLaunch, readyLines, requiredByCi, whenTrue, whereLines, type NetnsHosts } from './support/netns.js';

const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const missing = missingPrerequisite();
const run = missing === undefined || requiredByCi;

describe.runIf(run)(`dapl run across namespace hosts${missing === undefined ? '' : ` (${missing})`}`, () => {
  let hosts: NetnsHosts;
  let dir: string;
  beforeAll(() => {
    expect(missing, 'prerequisite').toBeUndefined();
    hosts = createHosts('ddr', 2, '10.231.2');
    dir = mkdtempSync(join(tmpdir(), 'dapl-hosts-'));
  });
  afterAll(() => {
    hosts?.remove();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const daplRun = (where: string[], program: string, extra: string[] = []) =>
    launch(process.execPath, [dapl, 'run', ...where, '--launcher', netnsLaunch, '--launcher-address', hosts.bridge, ...extra, program]);

  it('runs an MPI program (--hosts) and an FMPL program (--hostfile) on both hosts, each rank on its host\'s address', async () => {
    const hostfile = join(dir, 'hosts');
    writeFileSync(hostfile, `# two namespace hosts\nddr1:2\n\nddr2   # one rank per round\n`);
    const [mpi, fmpl] = await Promise.all([
      daplRun(['--hosts', 'ddr1:2,ddr2:2'], 'test/fixtures/multihost/mpi-hosts.mjs').done,
      daplRun(['--hostfile', hostfile, '-n', '5'], 'test/fixtures/multihost/fmpl-hosts.mjs').done,
    ]);
    expect(mpi.code, mpi.stderr).toBe(0);
    expect(fmpl.code, fmpl.stderr).toBe(0);
    // Each host takes its count of consecutive ranks in turn, as mpiexec -hosts does.
    expect(expectSpreadOverHosts(mpi.stdout, 4, hosts, 'mpi')).toEqual(['ddr1', 'ddr1', 'ddr2', 'ddr2']);
    expect(expectSpreadOverHosts(fmpl.stdout, 5, hosts, 'fmpl')).toEqual(['ddr1', 'ddr1', 'ddr2', 'ddr1', 'ddr1']);
    // The launcher's KVS holds PMI_process_mapping, as Hydra's does: each rank knows who shares its host.
    expect(whereLines(mpi.stdout).map((l) => l.local)).toEqual(['0+1', '0+1', '2+3', '2+3']);
    expect(whereLines(fmpl.stdout).map((l) => l.local)).toEqual(['0+1+3+4', '0+1+3+4', '2', '0+1+3+4', '0+1+3+4']);
  }, 120_000);

  it('refuses a foreign process on the PMI port and on a rank\'s PSP before any event; the job then ends normally', async () => {
    const job = daplRun(['--hosts', 'ddr1,ddr2'], 'test/fixtures/multihost/linger.mjs');
    await job.waitFor(/^rank \d: ready /, 2);
    const lines = readyLines(job.stdout());
    const [pmiHost, pmiPort] = [lines[0].pmi.slice(0, lines[0].pmi.lastIndexOf(':')), Number(lines[0].pmi.slice(lines[0].pmi.lastIndexOf(':') + 1))];
    expect(pmiHost).toBe(hosts.bridge);
    // Asks to be rank 0 and for the KVS without answering the challenge: closed, having got only the challenge.
    const atPmi = await knock(pmiHost, pmiPort, 'cmd=initack pmiid=0\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=get_my_kvsname\n');
    expect(atPmi).toEqual({ received: expect.stringMatching(/^cmd=auth_challenge nonce=[0-9a-f]{32}\n$/), closedByPeer: true });
    // rank 1's PSP on ddr2, reached from outside the job: dropped without a word.
    const [pspAddress, pspPort] = lines[1].psp.split('#');
    expect(pspAddress).toBe(hosts.address.ddr2);
    const atPsp = await knock(pspAddress, Number(pspPort), 'not the job\'s handshake\n'.repeat(4));
    expect(atPsp.closedByPeer).toBe(true);
    job.write('stop\n');
    const ended = await job.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout.match(/^rank \d: stopped$/gm)).toHaveLength(2);
    expect(ended.stderr).not.toMatch(/dapl run:/);
  }, 120_000);

  it('a host that dies mid-job ends the job on the other within 2 s, with the launcher\'s line and a non-zero status', async () => {
    const job = daplRun(['--hosts', 'ddr1:2,ddr2:2'], 'test/fixtures/multihost/linger.mjs');
    await job.waitFor(/^rank \d: ready /, 4);
    const killedAt = performance.now();
    expect(hosts.killHost('ddr2')).toBe(2);
    const ended = await job.done;
    expect(ended.code).not.toBe(0);
    expect(ended.stderr).toMatch(/^dapl run: rank [23] was killed by SIGKILL after [0-9.]+ s; stopping the other [0-9] ranks?$/m);
    const survivorsGone = await whenTrue(() => hosts.pids('ddr1').length === 0);
    process.stdout.write(`dapl run: the job ended ${(ended.endedAtMs - killedAt).toFixed(0)} ms after host ddr2 was killed (status ${ended.code})\n`);
    expect(survivorsGone - killedAt, 'no rank is left on ddr1 within 2 s').toBeLessThan(2000);
  }, 120_000);

  it('--timeout stops the ranks on every host and exits 124', async () => {
    const job = daplRun(['--hosts', 'ddr1,ddr2'], 'test/fixtures/multihost/linger.mjs', ['--timeout', '4']);
    const ended = await job.done;
    expect(ended.code).toBe(124);
    expect(ended.stderr).toMatch(/^dapl run: the job did not finish within --timeout 4 s; stopping the 2 running ranks$/m);
    await whenTrue(() => hosts.pids('ddr1').length + hosts.pids('ddr2').length === 0);
    expect(hosts.pids('ddr1').length + hosts.pids('ddr2').length).toBe(0);
  }, 120_000);
});
