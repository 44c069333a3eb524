import { describe, expect, it } from 'vitest';
import { BounceBuffers } from '../src/device/rdma/bounce-buffers.js';

describe('BounceBuffers', () => {
  it('lends up to its count of buffers of its size, made on demand, and reuses those given back', () => {
    const pool = new BounceBuffers(2, 1024);
    const a = pool.take()!;
    const b = pool.take()!;
    expect(a.length).toBe(1024);
    expect(b).not.toBe(a);
    expect(pool.take()).toBeUndefined();
    pool.give(a);
    expect(pool.take()).toBe(a);
    expect(pool.take()).toBeUndefined();
  });
});
