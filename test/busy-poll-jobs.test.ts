// tcp's busy polling as a job gets it: on by default where every process of the job has a CPU
// (dapl run says how many it started here, as Hydra does), off where they would share one, and
// as configured when the user says so.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { daplRun, sortedLines } from './support/dapl-run.js';

const PROGRAM = 'test/fixtures/busy-poll.mjs';
const cpus = availableParallelism();

describe('busy polling in tcp jobs', () => {
  it(`dapl run -n 2: each rank is told 2 ranks run here, and polls after input when the host has 2 CPUs (it has ${cpus})`, async () => {
    const ran = await daplRun(['-n', '2', '--provider', 'tcp', PROGRAM]);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const polling = cpus >= 2;
    expect(sortedLines(ran.stdout)).toEqual([0, 1].map((r) => `rank ${r} pollUs ${polling ? 200 : 0} polled ${polling} local 2`));
  });

  it('in-process ranks share one process, so they poll whatever the job size', async () => {
    const ran = await daplRun(['-n', '4', '--in-process', '--provider', 'tcp', PROGRAM]);
    expect(ran.code).toBe(0);
    const lines = sortedLines(ran.stdout);
    expect(lines).toHaveLength(4);
    for (const [r, line] of lines.entries()) expect(line).toMatch(new RegExp(`^rank ${r} pollUs 200 polled ${r < 2} local `));
  });

  it('DAPL_TCP_BUSY_POLL=off keeps every rank idle between messages; DAPL_TCP_POLL_US sets the window', async () => {
    const off = await daplRun(['-n', '2', '--provider', 'tcp', PROGRAM], { DAPL_TCP_BUSY_POLL: 'off' });
    expect(off.code).toBe(0);
    expect(sortedLines(off.stdout)).toEqual(['rank 0 pollUs 0 polled false local 2', 'rank 1 pollUs 0 polled false local 2']);
    // A window long enough that a loaded host (CI runs test files side by side) still turns the loop
    // within it after some input: with 50 µs, cold code on a busy CPU sometimes never did.
    const on = await daplRun(['-n', '2', '--provider', 'tcp', PROGRAM], { DAPL_TCP_BUSY_POLL: 'on', DAPL_TCP_POLL_US: '5000' });
    expect(on.code).toBe(0);
    expect(sortedLines(on.stdout)).toEqual(['rank 0 pollUs 5000 polled true local 2', 'rank 1 pollUs 5000 polled true local 2']);
  });
});
