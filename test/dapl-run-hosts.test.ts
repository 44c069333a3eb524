// `dapl run --hosts` through a launcher command, on this machine (test/support/local-launch runs the
// command here whatever the host): what every rank is given, with no root needed. The same over real
// namespace hosts: test/multihost-dapl-run.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';
import { whereLines } from './support/netns.js';

const shim = fileURLToPath(new URL('./support/local-launch', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'dapl-local-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dapl run --hosts with a launcher command', () => {
  it('on this host only (no --hosts) the ranks listen on loopback, and the mapping puts them all here', async () => {
    const ran = await daplRun(['-n', '2', 'test/fixtures/multihost/mpi-hosts.mjs'], {}, 60_000);
    expect(ran.code, ran.stderr).toBe(0);
    expect(whereLines(ran.stdout).map((l) => [l.listen, l.local, [...l.peers.values()]])).toEqual([
      ['127.0.0.1', '0+1', ['127.0.0.1']],
      ['127.0.0.1', '0+1', ['127.0.0.1']],
    ]);
  }, 120_000);

  it('starts each rank through the launcher with its host, PMI over TCP authenticated by the job key, the key on no command line', async () => {
    const log = join(dir, 'launches');
    const ran = await daplRun(['--hosts', 'alpha:2,beta', '--launcher', shim, '--launcher-address', '127.0.0.1', '--tag-output', 'test/fixtures/multihost/mpi-hosts.mjs'], { LOCAL_LAUNCH_LOG: log }, 60_000);
    expect(ran.code, ran.stderr).toBe(0);
    const lines = whereLines(ran.stdout);
    expect(lines.map((l) => l.what)).toEqual(['mpi', 'mpi', 'mpi']);
    // The launcher's process mapping (alpha: 0 and 1, beta: 2) reaches the ranks through the KVS.
    expect(lines.map((l) => l.local)).toEqual(['0+1', '0+1', '2']);
    const launches = readFileSync(log, 'utf8').trim().split('\n').sort();
    expect(launches.map((l) => l.split(' ')[0])).toEqual(['alpha', 'alpha', 'beta']);
    for (const launch of launches) {
      expect(launch).toMatch(/^\S+ sh -c '.*PMI_PORT=127\.0\.0\.1:\d+ PMI_ID=\d DAPL_PMI_AUTH=hmac-sha256 MPI_LOCALNRANKS=\d MPI_LOCALRANKID=\d /);
      expect(launch).toContain('IFS= read -r DAPL_JOB_KEY');
      expect(launch).not.toMatch(/DAPL_JOB_KEY=|[0-9a-f]{64}/);
    }
    expect(launches.filter((l) => l.includes('MPI_LOCALNRANKS=2'))).toHaveLength(2);
  }, 120_000);

  it("a rank's exit code passes through the launcher, and the job ends with the launcher's line", async () => {
    const ran = await daplRun(['--hosts', 'alpha,beta', '--launcher', shim, '--launcher-address', '127.0.0.1', 'packages/core/test/fixtures/launch/rank1-exits-3.mjs'], {}, 60_000);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toMatch(/^dapl run: rank 1 exited with code 3 after [0-9.]+ s/m);
  }, 120_000);

  // The other bad combinations are refused in readHostsRequest (packages/core/test/host-list.test.ts).
  it('refuses hosts for a provider that runs every rank in one process (usage error 2)', async () => {
    const inProcess = await daplRun(['--hosts', 'a', '--provider', 'ib', 'test/fixtures/multihost/mpi-hosts.mjs']);
    expect(inProcess.code).toBe(2);
    expect(inProcess.stderr).toMatch(/provider ib runs every rank in this process: it cannot run across hosts/);
  }, 60_000);
});
