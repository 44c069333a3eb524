import { describe, expect, it } from 'vitest';
import { MemAccess, RegistrationCache, WallClock } from '@dapl/core';
import { createLoopbackProvider } from '@dapl/core/testing';
import { byteSpan } from '../src/adi/transfer.js';
import { WriteSources, inPlaceRegion, receiveRegion } from '../src/device/rdma/rendezvous.js';

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

describe('rendezvous regions and the registration cache', () => {
  it('a region holds its buffer registered until it is released, however many other buffers the cache sees meanwhile', async () => {
    const ia = await createLoopbackProvider().openIa();
    const cache = new RegistrationCache(ia.createPz(), 2);
    const sources = new WriteSources(cache, 4, new WallClock());
    const sent = new Uint8Array(4096);
    // Two writes from one buffer share a region; each holds it until its own release.
    const first = sources.of(byteSpan(sent), sent.length);
    const second = sources.of(byteSpan(sent), sent.length);
    const target = receiveRegion(byteSpan(new Uint8Array(4096)), 4096, cache);
    for (let i = 0; i < 4; i++) cache.lmrFor(new Uint8Array(64));
    expect([first.lmr.freed, target.lmr.freed]).toEqual([false, false]);
    first.release();
    target.release();
    cache.lmrFor(new Uint8Array(64));
    expect([first.lmr.freed, target.lmr.freed]).toEqual([false, true]);
    second.release();
    cache.lmrFor(new Uint8Array(64));
    expect(first.lmr.freed).toBe(true);
    await ia.close();
  });
});
