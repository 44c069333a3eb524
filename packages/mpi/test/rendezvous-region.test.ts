import { describe, expect, it } from 'vitest';
import { MemAccess } from '@dapl/core';
import { createLoopbackProvider } from '@dapl/core/testing';
import { inPlaceRegion } from '../src/device/rdma/rendezvous.js';

describe('in-place rendezvous region', () => {
  it('addresses the buffer from its start, and hands out one iov again for the same range only', async () => {
    const ia = await createLoopbackProvider().openIa();
    const lmr = ia.createPz().registerLmr(new Uint8Array(1 << 20), MemAccess.ALL);
    const region = inPlaceRegion(lmr, 4096);
    const whole = region.iov(0, 65536);
    expect(whole).toEqual([{ lmr, offset: 4096, length: 65536 }]);
    // A window of writes from one buffer: the same range, the same (unmodified) iov.
    expect(region.iov(0, 65536)).toBe(whole);
    // Another range (a later chunk) gets its own, and the first range is right again afterwards.
    expect(region.iov(65536, 1000)).toEqual([{ lmr, offset: 4096 + 65536, length: 1000 }]);
    expect(region.iov(0, 65536)).toEqual([{ lmr, offset: 4096, length: 65536 }]);
    await ia.close();
  });
});
