import { describe, expect, it } from 'vitest';
import { MemAccess, RegistrationCache, type Rmr } from '@dapl/core';
import { createLoopbackProvider } from '@dapl/core/testing';
import { SharedExposures } from '../src/device/rdma/shared-exposures.js';
import { receiveRegion } from '../src/device/rdma/rendezvous.js';
import { byteSpan } from '../src/adi/transfer.js';

async function fixture() {
  const ia = await createLoopbackProvider().openIa();
  const pz = ia.createPz();
  const cache = new RegistrationCache(pz, 16);
  const returned: Rmr[] = [];
  const shared = new SharedExposures(
    () => pz.createRmr(),
    (rmr) => {
      rmr.unbind();
      returned.push(rmr);
    },
    MemAccess.REMOTE_WRITE,
  );
  // What the device passes for a contiguous receive: its buffer's LMR and the offset of its first byte.
  const region = (bytes: Uint8Array) => receiveRegion(byteSpan(bytes), bytes.length, cache);
  const acquire = (bytes: Uint8Array, length: number) => {
    const r = region(bytes);
    return shared.acquire(r.lmr, r.start, length);
  };
  return { ia, shared, returned, acquire };
}

describe('SharedExposures (advertised receives into the same bytes)', () => {
  it('binds one RMR for every receive into the same bytes and unbinds it after the last release', async () => {
    const { ia, shared, returned, acquire } = await fixture();
    const buf = new Uint8Array(4096);
    const a = acquire(buf, buf.length);
    const b = acquire(buf, buf.length);
    expect(b.rmr).toBe(a.rmr);
    expect(b.triplet).toEqual(a.triplet);
    expect(shared.size).toBe(1);
    shared.release(a);
    expect(returned).toEqual([]);
    expect(a.rmr.triplet).toBeDefined();
    shared.release(b);
    expect(returned).toEqual([a.rmr]);
    expect(a.rmr.triplet).toBeUndefined();
    expect(shared.size).toBe(0);
    // A new receive into the same bytes binds afresh: a fresh context.
    const c = acquire(buf, buf.length);
    expect(c.triplet.rmrContext).not.toBe(a.triplet.rmrContext);
    shared.release(c);
    await ia.close();
  });

  it('binds different bytes (other buffers, other slices, other lengths) separately', async () => {
    const { ia, shared, returned, acquire } = await fixture();
    const whole = new Uint8Array(8192);
    const first = acquire(whole.subarray(0, 4096), 4096);
    const second = acquire(whole.subarray(4096), 4096);
    const shorter = acquire(whole.subarray(0, 2048), 2048);
    const other = acquire(new Uint8Array(4096), 4096);
    const rmrs = new Set([first.rmr, second.rmr, shorter.rmr, other.rmr]);
    expect(rmrs.size).toBe(4);
    expect(second.triplet.targetOffset).toBe(first.triplet.targetOffset + 4096);
    expect(shorter.triplet.length).toBe(2048);
    for (const e of [first, second, shorter, other]) shared.release(e);
    expect(new Set(returned)).toEqual(rmrs);
    expect(shared.size).toBe(0);
    await ia.close();
  });
});
