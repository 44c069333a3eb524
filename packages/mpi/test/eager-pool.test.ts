import type { InterfaceAdapter, ProtectionZone, SharedReceiveQueue } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import type { MpiParameters } from '../src/api/mpi-parameters.js';
import { SharedEagerPool } from '../src/device/rdma/eager-pool.js';
import type { Slot } from '../src/device/rdma/slot.js';

const SLOT_BYTES = 8240;

/** A shared receive queue that keeps its posts oldest first, as the kit's, and records its watermark and registrations. */
function fakeQueue() {
  const posted: Slot[] = [];
  const registered: number[] = [];
  const pz = { registerLmr: (bytes: Uint8Array) => (registered.push(bytes.length), { bytes }) } as unknown as ProtectionZone;
  const queue = {
    pz,
    freed: false,
    watermark: 0,
    postRecv: (_iov: unknown, slot: Slot) => void posted.push(slot),
    query: () => ({ maxRecvs: 512, lowWatermark: queue.watermark, posted: posted.length, endpoints: 1 }),
    setLowWatermark: (n: number) => void (queue.watermark = n),
  };
  const ia = { createSrq: () => queue } as unknown as InterfaceAdapter;
  return { posted, registered, queue, ia, pz };
}

function poolWith(initialPosts: number) {
  const params = { credits: 64, srqBuffers: 512, srqInitialPosts: initialPosts } as MpiParameters;
  const pool = new SharedEagerPool(params, SLOT_BYTES);
  const q = fakeQueue();
  pool.make(q.ia, q.pz as ProtectionZone) as SharedReceiveQueue;
  pool.start();
  return { pool, ...q };
}

describe('SharedEagerPool', () => {
  it('registers the first chunk whole and posts srqInitialPosts of it, with the watermark at half of those', () => {
    const { pool, posted, registered, queue } = poolWith(16);
    expect(registered).toEqual([64 * SLOT_BYTES]);
    expect(pool.buffers).toBe(64);
    expect(posted).toHaveLength(16);
    expect(queue.watermark).toBe(8);
  });

  it('a rank receiving one message at a time fills only the posted buffers, again and again', () => {
    const { pool, posted } = poolWith(16);
    const filled = new Set<Slot>();
    for (let i = 0; i < 100; i++) {
      const slot = posted.shift()!;
      filled.add(slot);
      pool.repost(slot);
    }
    expect(filled.size).toBe(16);
  });

  it('posts the spare buffers once half as many receives are posted, then grows by registered chunks on the watermark', () => {
    const { pool, posted, registered, queue } = poolWith(16);
    pool.expect(7);
    expect(posted).toHaveLength(16);
    pool.expect(8);
    expect(posted).toHaveLength(64);
    expect(registered).toHaveLength(1);
    expect(queue.watermark).toBe(16);
    expect(pool.onLow()).toBe(true);
    expect(registered).toEqual([64 * SLOT_BYTES, 64 * SLOT_BYTES]);
    expect(posted).toHaveLength(128);
  });

  it('the watermark event posts the spares; one already answered by expect registers nothing', () => {
    const low = poolWith(16);
    low.posted.splice(0, 9);
    expect(low.pool.onLow()).toBe(true);
    expect(low.posted).toHaveLength(7 + 48);
    expect(low.registered).toHaveLength(1);

    const answered = poolWith(16);
    answered.posted.splice(0, 9);
    answered.pool.expect(8);
    expect(answered.posted).toHaveLength(7 + 48);
    expect(answered.pool.onLow()).toBe(true);
    expect(answered.registered).toHaveLength(1);
    expect(answered.pool.onLow()).toBe(true);
    expect(answered.registered).toHaveLength(2);
  });

  it('srqInitialPosts of a chunk or more posts the whole first chunk, the watermark at a quarter of it', () => {
    const { posted, queue } = poolWith(100);
    expect(posted).toHaveLength(64);
    expect(queue.watermark).toBe(16);
  });
});
