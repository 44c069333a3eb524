// mpi.pollWait: a blocking call polls the transport before it awaits where the provider says that
// pays (shm polling: its dequeuePollUs); never where completions come on their own (a simulated
// machine, tcp); and not when switched off. The data is checked in every case.
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';
import { fixture, passed, ranks } from './support/mpi-jobs.js';

const KILL_AFTER_MS = 90_000;
const run = (launch: string[], env: Record<string, string> = {}) => daplRun(['-n', '2', ...launch, fixture('polled-wait')], env, KILL_AFTER_MS);
const report = (polled: string) => ranks(2, `250 round trips checked; polled ${polled}`);

describe('blocking calls that poll the transport (mpi.pollWait)', { timeout: 120_000 }, () => {
  it('on shm with polling, waits complete while they poll (rdma and channel devices); with mpi.pollWait=off, or shm asleep when idle, none do', async () => {
    const [on, channel, off, idle] = await Promise.all([
      run(['--provider', 'shm'], { DAPL_SHM_SPIN: 'on' }),
      run(['--provider', 'shm'], { DAPL_SHM_SPIN: 'on', DAPL_MPI_DEVICE: 'channel' }),
      run(['--provider', 'shm'], { DAPL_SHM_SPIN: 'on', DAPL_MPI_POLL_WAIT: 'off' }),
      run(['--provider', 'shm'], { DAPL_SHM_SPIN: 'off' }),
    ]);
    expect(passed(on)).toEqual(report('some'));
    expect(passed(channel)).toEqual(report('some'));
    expect(passed(off)).toEqual(report('none'));
    expect(passed(idle)).toEqual(report('none'));
  });

  it('on a simulated machine (ib) and on tcp, where completions come on their own, no wait polls', async () => {
    const [ib, tcp] = await Promise.all([run(['--provider', 'ib']), run(['--in-process', '--provider', 'tcp'])]);
    expect(passed(ib)).toEqual(report('none'));
    expect(passed(tcp)).toEqual(report('none'));
  });
});
