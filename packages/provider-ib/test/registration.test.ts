import { describe, expect, it } from 'vitest';
import { MemAccess } from '@dapl/core';
import { createIbProvider, IB_MODEL } from '../src/index.js';

describe('ib registration cost', () => {
  it("registering an LMR charges the registering node's clock per region and per page", async () => {
    const ib = createIbProvider();
    const ia = await ib.openIa();
    try {
      const clock = ib.kernel.clock(0);
      const pz = ia.createPz();
      const before = clock.nowNs;
      pz.registerLmr(new Uint8Array(1 << 20), MemAccess.LOCAL);
      expect(clock.nowNs - before).toBe(IB_MODEL.registerRegionNs + 256 * IB_MODEL.registerPageNs);
      const mid = clock.nowNs;
      pz.registerLmr(new Uint8Array(4097), MemAccess.LOCAL);
      expect(clock.nowNs - mid).toBe(IB_MODEL.registerRegionNs + 2 * IB_MODEL.registerPageNs);
    } finally {
      await ia.close();
    }
  });

  it('an IA whose model parameters differ from its fabric is refused', async () => {
    const ib = createIbProvider();
    const ia = await ib.openIa();
    try {
      await expect(ib.openIa({ parameters: { linkBytesPerNs: 2 } })).rejects.toThrow(/ib\.linkBytesPerNs must be 1/);
    } finally {
      await ia.close();
    }
  });
});
