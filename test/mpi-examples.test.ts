// The MPI examples run as written: pi.mjs and heat.mjs on several providers, heat's checksum equal
// to that of a one-rank run whatever the process grid.
import { describe, expect, it } from 'vitest';
import { daplRun, sortedLines } from './support/dapl-run.js';

describe('examples/pi.mjs', () => {
  it.each([
    ['tcp', ['-n', '1', '--in-process']],
    ['tcp', ['-n', '4']],
    ['lapi', ['-n', '8', '--provider', 'lapi']],
    ['shm', ['-n', '3', '--provider', 'shm']],
  ])('on %s (%j): pi to within the midpoint rule', async (_p, launch) => {
    const ran = await daplRun([...launch, 'examples/pi.mjs', '200000']);
    expect(ran.code).toBe(0);
    const m = /^pi is approximately (3\.\d+), error ([0-9.e-]+) \(200000 intervals, (\d+) ranks on (\w+)\)$/m.exec(ran.stdout);
    expect(m, ran.stdout + ran.stderr).not.toBeNull();
    expect(Math.abs(Number(m![1]) - Math.PI)).toBeLessThan(1e-10);
  });
});

/** Four jobs of up to 6 ranks at once: a loaded 2-core host can take well over the default 20 s. */
const HEAT_KILL_AFTER_MS = 90_000;

/** pi.mjs (4 ranks) and heat.mjs (6 ranks) with a device's settings: pi to within the midpoint rule, heat's checksum that of the rdma device. */
async function sameResults(env: Record<string, string>, piProvider: string, heatProvider: string): Promise<void> {
  const [pi, heat, heatRdma] = await Promise.all([
    daplRun(['-n', '4', '--provider', piProvider, 'examples/pi.mjs', '200000'], env, 100_000),
    daplRun(['-n', '6', '--provider', heatProvider, 'examples/heat.mjs', '40', '60'], env, 100_000),
    daplRun(['-n', '6', '--provider', heatProvider, 'examples/heat.mjs', '40', '60'], {}, 100_000),
  ]);
  const m = new RegExp(`^pi is approximately (3\\.\\d+), error ([0-9.e-]+) \\(200000 intervals, 4 ranks on ${piProvider}\\)$`, 'm').exec(pi.stdout);
  expect(m, pi.stdout + pi.stderr).not.toBeNull();
  expect(Math.abs(Number(m![1]) - Math.PI)).toBeLessThan(1e-10);
  for (const ran of [heat, heatRdma]) expect(ran.code, ran.stderr).toBe(0);
  const checksum = (text: string) => sortedLines(text).find((l) => l.includes('checksum'));
  expect(checksum(heat.stdout)).toMatch(/^heat: 40x40 plate, 60 steps: checksum [0-9.]+, centre [0-9.e-]+$/);
  expect(checksum(heat.stdout)).toBe(checksum(heatRdma.stdout));
}

describe('examples on the channel and am devices', () => {
  it('the channel device: pi.mjs on lapi, heat.mjs on combuf (the 2x3 grid)', async () => {
    await sameResults({ DAPL_MPI_DEVICE: 'channel' }, 'lapi', 'combuf');
  }, 120_000);

  it.each([['base'], ['counters'], ['enhanced']])('the am device (%s): pi.mjs and heat.mjs on lapi', async (variant) => {
    await sameResults({ DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: variant }, 'lapi', 'lapi');
  }, 120_000);
});

describe('examples/heat.mjs', () => {
  it('prints the same checksum on 1, 4 (2×2) and 6 (2×3) ranks over tcp, 6 on combuf and 4 on shm, as the sendrecv version did', async () => {
    const runs = await Promise.all([
      daplRun(['-n', '1', '--in-process', 'examples/heat.mjs', '40', '60'], {}, HEAT_KILL_AFTER_MS),
      daplRun(['-n', '4', 'examples/heat.mjs', '40', '60'], {}, HEAT_KILL_AFTER_MS),
      daplRun(['-n', '6', '--in-process', 'examples/heat.mjs', '40', '60'], {}, HEAT_KILL_AFTER_MS),
      daplRun(['-n', '6', '--provider', 'combuf', 'examples/heat.mjs', '40', '60'], {}, HEAT_KILL_AFTER_MS),
    ]);
    // After the others, not beside them: four worker threads more would slow their jobs on 2 vCPUs.
    runs.push(await daplRun(['-n', '4', '--provider', 'shm', 'examples/heat.mjs', '40', '60'], {}, 120_000));
    const grids: string[] = [];
    const checksums = runs.map((ran) => {
      expect(ran.code, ran.stderr).toBe(0);
      const lines = sortedLines(ran.stdout);
      expect(lines).toHaveLength(2);
      grids.push(lines.find((l) => / ranks as a /.test(l)) ?? '');
      return lines.find((l) => l.includes('checksum'));
    });
    expect(checksums[0]).toMatch(/^heat: 40x40 plate, 60 steps: checksum [0-9.]+, centre [0-9.e-]+$/);
    // What the version with halos by sendrecv on comm.split rows and columns printed (up to 41b2675):
    // the Cartesian, subarray and persistent-request version computes the same plate.
    expect(checksums[0]).toBe('heat: 40x40 plate, 60 steps: checksum 14078.668432882017, centre 0.011546819856892515');
    expect(new Set(checksums).size).toBe(1);
    expect(grids.map((g) => / (\d+) ranks as a (\dx\d) grid on (\w+)/.exec(g)!.slice(1).join(' '))).toEqual(['1 1x1 tcp', '4 2x2 tcp', '6 2x3 tcp', '6 2x3 combuf', '4 2x2 shm']);
  }, 240_000);
});
