import { describe, expect, it } from 'vitest';
import { launcherAddress, spansHosts } from '../src/runtime/local-processes.js';
import type { Runtime } from '../src/runtime/runtime.js';

const runtime = (size: number, localRanks?: number[]): Runtime => ({ size, rank: 0, localRanks }) as unknown as Runtime;

describe('whether a job spans hosts, and where its launcher is', () => {
  it('reads the process mapping first, then MPI_LOCALNRANKS, then Slurm\'s node count', () => {
    expect(spansHosts(runtime(4, [0, 1]), {})).toBe(true);
    expect(spansHosts(runtime(4, [0, 1, 2, 3]), { SLURM_STEP_NUM_NODES: '2' })).toBe(false);
    expect(spansHosts(runtime(4), { MPI_LOCALNRANKS: '2' })).toBe(true);
    expect(spansHosts(runtime(4), { MPI_LOCALNRANKS: '4' })).toBe(false);
    expect(spansHosts(runtime(4), { SLURM_STEP_NUM_NODES: '2' })).toBe(true);
    expect(spansHosts(runtime(4), { SLURM_NNODES: '1' })).toBe(false);
    expect(spansHosts(runtime(1), { MPI_LOCALNRANKS: '1', SLURM_NNODES: '3' })).toBe(false);
    expect(spansHosts(runtime(4), {})).toBe(false);
  });

  it("takes PMI_PORT's host, else SLURM_LAUNCH_NODE_IPADDR", () => {
    expect(launcherAddress({ PMI_PORT: '10.231.2.1:4000', SLURM_LAUNCH_NODE_IPADDR: '10.0.0.1' })).toBe('10.231.2.1');
    expect(launcherAddress({ PMI_PORT: '[fd00::1]:4000' })).toBe('fd00::1');
    expect(launcherAddress({ SLURM_LAUNCH_NODE_IPADDR: '10.0.0.1' })).toBe('10.0.0.1');
    expect(launcherAddress({ PMI_PORT: ':4000' })).toBeUndefined();
    expect(launcherAddress({})).toBeUndefined();
  });
});
