import { describe, expect, it } from 'vitest';
import { DatStatus } from '@dapl/core';
import { createCombufProvider, COMBUF_MODEL, LATENCY_REFERENCE_BYTES, nicOverheadNs } from '../src/index.js';
import { resolveCombufParameters } from '../src/params.js';
import { TcwCache } from '../src/tcw-cache.js';

const M = COMBUF_MODEL;

describe('combuf model', () => {
  it("the NIA overheads fill what the kick, the wire, the cable and one crossbar leave of the 4.7 µs", () => {
    const nic = nicOverheadNs(resolveCombufParameters({}));
    const wire = (LATENCY_REFERENCE_BYTES + M.packetHeaderBytes) / M.linkBytesPerNs;
    expect(M.kickOverheadNs + 2 * nic + wire + M.linkLatencyNs + M.crossbarHopNs).toBeCloseTo(M.tcwReusedLatencyNs, 9);
    expect(nic).toBeGreaterThan(0);
  });

  it('a latency smaller than its parts is refused, naming the parameter', async () => {
    const combuf = createCombufProvider({ parameters: { tcwReusedLatencyNs: 100 } });
    const opening = combuf.openIa();
    await expect(opening).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'combuf.tcwReusedLatencyNs' });
    await expect(opening).rejects.toThrow(/combuf\.tcwReusedLatencyNs must be at least .* = 524 ns, got 100/);
  });

  it('an IA whose model parameters differ from its machine is refused', async () => {
    const combuf = createCombufProvider();
    const ia = await combuf.openIa();
    try {
      await expect(combuf.openIa({ parameters: { tcwCreateNs: 1 } })).rejects.toThrow(/combuf\.tcwCreateNs must be 3400/);
    } finally {
      await ia.close();
    }
  });

  it('addresses are combuf:<node>, in open order', async () => {
    const combuf = createCombufProvider();
    const a = await combuf.openIa();
    const b = await combuf.openIa();
    try {
      expect([a.query().address, b.query().address]).toEqual(['combuf:0', 'combuf:1']);
      expect(a.query().extensions).toEqual(['hw-collectives']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('TcwCache', () => {
  it('reports a miss, then hits; evicts the least recently used past capacity', () => {
    const cache = new TcwCache(2);
    expect([cache.use('a'), cache.use('a'), cache.use('b'), cache.use('a'), cache.use('c')]).toEqual([false, true, false, true, false]);
    expect(cache.size).toBe(2);
    expect([cache.use('a'), cache.use('b')]).toEqual([true, false]); // b was the oldest
  });

  it('refuses a capacity below 1', () => {
    expect(() => new TcwCache(0)).toThrow(/capacity/);
  });
});
