import { describe, expect, it } from 'vitest';
import { SendBufferRing, type RingBlock } from '../src/send-buffer-ring.js';

/** Every live block's bytes [offset, offset + length) must lie in the buffer and overlap no other's. */
function expectDisjoint(blocks: readonly RingBlock[], capacity: number): void {
  const live = blocks.filter((b) => !b.freed && b.length > 0).sort((a, b) => a.offset - b.offset);
  for (const b of live) expect(b.offset + b.length).toBeLessThanOrEqual(capacity);
  for (let i = 1; i < live.length; i++) expect(live[i].offset).toBeGreaterThanOrEqual(live[i - 1].offset + live[i - 1].length);
}

describe('SendBufferRing', () => {
  it('places copies one after another and refuses one that does not fit', () => {
    const ring = new SendBufferRing(100);
    const a = ring.allocate(40)!;
    const b = ring.allocate(40)!;
    expect([a.offset, b.offset]).toEqual([0, 40]);
    expect(ring.allocate(30)).toBeUndefined();
    expect(ring.inUse).toBe(80);
    expect(ring.allocate(101)).toBeUndefined();
  });

  it('a stream reuses the buffer without ever emptying it (wrapping to the start)', () => {
    const ring = new SendBufferRing(100);
    const live: RingBlock[] = [];
    const all: RingBlock[] = [];
    for (let i = 0; i < 50; i++) {
      const block = ring.allocate(30);
      expect(block, `copy ${i}`).toBeDefined();
      live.push(block!);
      all.push(block!);
      expectDisjoint(all, 100);
      // Two stay live: the oldest goes once a third is placed.
      if (live.length === 3) ring.free(live.shift()!);
      expect(ring.inUse).toBeGreaterThan(0);
    }
  });

  it('space freed out of order comes back once the older copies are freed too', () => {
    const ring = new SendBufferRing(100);
    const a = ring.allocate(50)!;
    const b = ring.allocate(50)!;
    ring.free(b);
    expect(ring.allocate(10)).toBeUndefined();
    ring.free(a);
    expect(ring.inUse).toBe(0);
    expect(ring.allocate(100)?.offset).toBe(0);
  });

  it('the end skipped by a wrap is held until the copy after it is freed', () => {
    const ring = new SendBufferRing(100);
    const a = ring.allocate(60)!;
    const b = ring.allocate(30)!; // 60..90
    ring.free(a);
    const c = ring.allocate(20)!; // 10 left at the end: wraps to 0, skipping 90..100
    expect([c.offset, c.skipped]).toEqual([0, 10]);
    expect(ring.inUse).toBe(60);
    expect(ring.allocate(41)).toBeUndefined(); // 20..60 is free: 40 bytes
    const d = ring.allocate(40)!;
    expect(d.offset).toBe(20);
    expectDisjoint([b, c, d], 100);
    ring.free(b);
    // c is the oldest: the end it skipped is free again.
    expect(ring.inUse).toBe(60);
    ring.free(c);
    // Live: d at 20..60; the room is 60..100 and 0..20.
    expect(ring.allocate(40)?.offset).toBe(60);
    expect(ring.allocate(20)?.offset).toBe(0);
    expect(ring.allocate(1)).toBeUndefined();
  });

  it('a wrap that skips nothing (the last copy ended at the buffer end) still unwraps when freed past', () => {
    const ring = new SendBufferRing(100);
    const a = ring.allocate(50)!;
    const b = ring.allocate(50)!; // ends at 100
    ring.free(a);
    const c = ring.allocate(50)!;
    expect([c.offset, c.skipped]).toEqual([0, 0]);
    ring.free(b);
    // Live: c at 0..50; 50..100 is free.
    expect(ring.allocate(50)?.offset).toBe(50);
  });

  it('never counts more in use than the buffer holds', () => {
    const ring = new SendBufferRing(100);
    const a = ring.allocate(60)!;
    const b = ring.allocate(30)!;
    ring.free(a);
    ring.allocate(50); // wraps, skipping 90..100
    ring.free(b);
    expect(ring.allocate(50)?.offset).toBe(50);
    expect(ring.inUse).toBe(100);
  });

  it('zero-length copies and a double free are harmless', () => {
    const ring = new SendBufferRing(10);
    const z = ring.allocate(0)!;
    const a = ring.allocate(10)!;
    ring.free(z);
    ring.free(z);
    expect(ring.inUse).toBe(10);
    ring.free(a);
    expect(ring.inUse).toBe(0);
  });
});
