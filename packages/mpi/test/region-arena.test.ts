import { describe, expect, it } from 'vitest';
import { takeRegion } from '../src/device/rdma/region-arena.js';

describe('takeRegion', () => {
  it('hands out regions of the asked size that never overlap, on 64-byte boundaries, many from one allocation', () => {
    const regions = Array.from({ length: 40 }, (_, i) => takeRegion(1000 + i));
    regions.forEach((r, i) => {
      expect(r.byteLength).toBe(1000 + i);
      expect(r.byteOffset % 64).toBe(0);
      r.fill(i);
    });
    // Every region still holds what was written to it: none shares a byte with another.
    regions.forEach((r, i) => expect(r.every((b) => b === i)).toBe(true));
    expect(new Set(regions.map((r) => r.buffer)).size).toBeLessThan(regions.length);
  });

  it('gives a region larger than a chunk holds an allocation of its own', () => {
    const big = takeRegion(2 ** 29);
    expect(big.byteLength).toBe(2 ** 29);
    expect(big.buffer.byteLength).toBe(2 ** 29);
    const next = takeRegion(64);
    expect(next.buffer).not.toBe(big.buffer);
  });
});
