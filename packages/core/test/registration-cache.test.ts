import { describe, expect, it } from 'vitest';
import { MemAccess, RegistrationCache } from '../src/index.js';
import { createLoopbackProvider } from '../src/testing/index.js';

async function fixture(limit: number) {
  const ia = await createLoopbackProvider().openIa();
  const pz = ia.createPz();
  return { ia, pz, cache: new RegistrationCache(pz, limit) };
}

const buffers = (n: number) => Array.from({ length: n }, () => new Uint8Array(256));

describe('RegistrationCache', () => {
  it('registers a whole ArrayBuffer once for every view on it', async () => {
    const { ia, cache } = await fixture(4);
    const whole = new Uint8Array(1024);
    const lmr = cache.lmrFor(whole);
    expect(cache.lmrFor(whole.subarray(100, 200))).toBe(lmr);
    expect(cache.lmrFor(new Uint8Array(whole.buffer, 512))).toBe(lmr);
    expect(cache.registrations).toBe(1);
    await ia.close();
  });

  it('frees the least recently used idle entries past its limit', async () => {
    const { ia, cache } = await fixture(2);
    const [a, b, c] = buffers(3);
    const la = cache.lmrFor(a);
    const lb = cache.lmrFor(b);
    cache.lmrFor(a); // a is the most recent now: b goes first
    cache.lmrFor(c);
    expect([la.freed, lb.freed]).toEqual([false, true]);
    expect(cache.lmrFor(b)).not.toBe(lb); // registered again
    expect(cache.registrations).toBe(4);
    await ia.close();
  });

  it('keeps a pinned entry (a DTO in flight) past its limit until it is unpinned, once per pin', async () => {
    const { ia, cache } = await fixture(2);
    const [a, b, c, d, e] = buffers(5);
    const pa = cache.pin(a);
    const again = cache.pin(a); // a second transfer from the same buffer
    expect(again).toBe(pa);
    expect(pa.pins).toBe(2);
    const lb = cache.lmrFor(b);
    cache.lmrFor(c);
    cache.lmrFor(d);
    expect(pa.lmr.freed).toBe(false); // the oldest, but pinned: b and c went instead
    expect(lb.freed).toBe(true);
    cache.unpin(pa);
    cache.lmrFor(e);
    expect(pa.lmr.freed).toBe(false); // one transfer still holds it
    cache.unpin(again);
    cache.lmrFor(b);
    expect(pa.lmr.freed).toBe(true);
    await ia.close();
  });

  it('keeps an entry with an RMR bound to it until the RMR is unbound', async () => {
    const { ia, pz, cache } = await fixture(1);
    const [a, b, c] = buffers(3);
    const la = cache.lmrFor(a);
    const rmr = pz.createRmr();
    rmr.bind(la, 0, a.length, MemAccess.REMOTE_WRITE);
    cache.lmrFor(b);
    expect(la.freed).toBe(false);
    rmr.unbind();
    cache.lmrFor(c);
    expect(la.freed).toBe(true);
    await ia.close();
  });
});
