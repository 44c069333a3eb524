// Jobs of a simulated provider (`dapl run --provider ib`): the ranks run in one process under the
// provider's kernel, in virtual time. They print what the same job prints over tcp, end at the
// same virtual time on every run, and a deadlock ends the job with a report naming each rank's wait.
import { describe, expect, it } from 'vitest';
import { daplRun, sortedLines } from './support/dapl-run.js';

const ring = 'examples/dat-ring.mjs';
const deadlock = 'test/fixtures/deadlock.mjs';
const privatised = 'packages/core/test/fixtures/in-process/privatised.mjs';

/** The virtual end time from a `DAPL_SIM_REPORT=1` line. */
function virtualEndNs(stderr: string): number {
  const match = /^dapl run: simulated \d+ ranks? on \w+: virtual end time ([0-9.e+]+) ns, (\d+) events/m.exec(stderr);
  expect(match, `no simulation report in: ${stderr}`).not.toBeNull();
  return Number(match![1]);
}

describe('dapl run --provider ib: ranks under the kernel, in virtual time', () => {
  it('dat-ring -n 16 prints what it prints in-process over tcp', async () => {
    const [ib, tcp] = await Promise.all([daplRun(['-n', '16', '--provider', 'ib', ring, '3']), daplRun(['-n', '16', '--in-process', '--provider', 'tcp', ring, '3'])]);
    expect(ib).toMatchObject({ code: 0, stderr: '' });
    expect(tcp).toMatchObject({ code: 0, stderr: '' });
    const lines = sortedLines(ib.stdout);
    expect(lines).toEqual(sortedLines(tcp.stdout));
    expect(lines).toContain('dat-ring: 16 ranks, 3 laps, token 408 (expected 408): OK');
    expect(lines.filter((l) => /^rank \d+ of 16: passed the token 3 times$/.test(l))).toHaveLength(16);
  });

  it('the same job twice ends at the same virtual time (DAPL_SIM_REPORT=1 reports it on stderr, nothing new on stdout)', async () => {
    const report = { DAPL_SIM_REPORT: '1' };
    const [first, second] = await Promise.all([daplRun(['-n', '16', '--provider', 'ib', ring, '4'], report), daplRun(['-n', '16', '--provider', 'ib', ring, '4'], report)]);
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    const end = virtualEndNs(first.stderr);
    expect(end).toBeGreaterThan(0);
    expect(virtualEndNs(second.stderr)).toBe(end);
    expect(sortedLines(first.stdout)).toContain('dat-ring: 16 ranks, 4 laps, token 544 (expected 544): OK');
    expect(first.stdout).not.toMatch(/simulated|virtual/);
  });

  it('a deadlock ends the job with exit 1 and one line naming each rank and the EVD it waits on', async () => {
    const ran = await daplRun(['-n', '2', '--provider', 'ib', deadlock]);
    expect(ran.killed).toBe(false);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    const lines = ran.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^dapl run: .*deadlock at \d+ ns of virtual time: no event is pending and 2 ranks are blocked:/);
    expect(lines[0]).toContain('rank 0: evd.wait() on the recv EVD of ib:1');
    expect(lines[0]).toContain('rank 1: evd.wait() on the recv EVD of ib:2');
  });

  it("a deadlock report names a rank's runtime.barrier() wait", async () => {
    const ran = await daplRun(['-n', '2', '--provider', 'ib', deadlock, 'barrier']);
    expect(ran).toMatchObject({ killed: false, code: 1 });
    expect(ran.stderr).toContain('rank 0: runtime.barrier()');
    expect(ran.stderr).toContain('rank 1: evd.wait() on the recv EVD of ib:2');
  });

  it("each rank has its own instance of the program's modules under ib too (a helper's counter is 1 on every rank)", async () => {
    const ran = await daplRun(['-n', '4', '--provider', 'ib', privatised, 'x']);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const lines = sortedLines(ran.stdout);
    expect(lines).toHaveLength(4);
    for (let r = 0; r < 4; r++) expect(lines[r]).toMatch(new RegExp(`^rank ${r} of 4: counter 1, core instance 1, args x, key [0-9a-f]{64}$`));
  });
});

describe.each(['lapi', 'combuf'])('dapl run --provider %s: the same program in virtual time', (provider) => {
  it('dat-ring -n 16 prints what it prints over tcp, and ends at the same virtual time twice', async () => {
    const report = { DAPL_SIM_REPORT: '1' };
    const [first, second, tcp] = await Promise.all([
      daplRun(['-n', '16', '--provider', provider, ring, '3'], report),
      daplRun(['-n', '16', '--provider', provider, ring, '3'], report),
      daplRun(['-n', '16', '--in-process', '--provider', 'tcp', ring, '3']),
    ]);
    expect(first.code).toBe(0);
    expect(tcp.code).toBe(0);
    expect(sortedLines(first.stdout)).toEqual(sortedLines(tcp.stdout));
    expect(virtualEndNs(first.stderr)).toBeGreaterThan(0);
    expect(virtualEndNs(second.stderr)).toBe(virtualEndNs(first.stderr));
  });
});
