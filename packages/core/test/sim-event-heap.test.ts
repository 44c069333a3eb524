import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { EventHeap } from '../src/sim/event-heap.js';
import { seededRandom } from '../src/testing/seeded-random.js';

function drain<T, D>(heap: EventHeap<T, D>): { time: number; seq: number; item: T; data: D | undefined }[] {
  const out: { time: number; seq: number; item: T; data: D | undefined }[] = [];
  while (heap.size > 0) {
    const item = heap.pop() as T;
    out.push({ time: heap.poppedTime, seq: heap.poppedSeq, item, data: heap.poppedData });
  }
  return out;
}

describe('EventHeap', () => {
  it('pops the earliest time first and equal times in insertion order', () => {
    const heap = new EventHeap<string>();
    heap.push(30, 'c1');
    heap.push(10, 'a1');
    heap.push(30, 'c2');
    heap.push(20, 'b1');
    heap.push(10, 'a2');
    heap.push(30, 'c3');
    heap.push(10, 'a3');
    expect(drain(heap).map((e) => e.item)).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'c2', 'c3']);
  });

  it('returns increasing seqs from push and reports each popped entry\'s time, seq and data', () => {
    const heap = new EventHeap<string, number>();
    const s1 = heap.push(5, 'x', 50);
    const s2 = heap.push(1, 'y', 10);
    expect(s1).toBeGreaterThanOrEqual(1);
    expect(s2).toBe(s1 + 1);
    expect(heap.peekTime()).toBe(1);
    expect(heap.peekSeq()).toBe(s2);
    expect(drain(heap)).toEqual([
      { time: 1, seq: s2, item: 'y', data: 10 },
      { time: 5, seq: s1, item: 'x', data: 50 },
    ]);
    expect(heap.pop()).toBeUndefined();
    expect(heap.peekTime()).toBe(Infinity);
    expect(heap.peekSeq()).toBe(0);
  });

  it('pops 100k random events (many at equal times) in (time, insertion) order, growing from a small capacity', () => {
    const random = seededRandom(20240605);
    const heap = new EventHeap<number>(16);
    const reference: { time: number; index: number }[] = [];
    for (let i = 0; i < 100_000; i++) {
      // Few distinct times so that ties are frequent; some fractional ns too.
      const time = random() < 0.5 ? Math.floor(random() * 1000) : Math.floor(random() * 4000) / 4;
      heap.push(time, i);
      reference.push({ time, index: i });
    }
    reference.sort((a, b) => a.time - b.time || a.index - b.index);
    const popped = drain(heap);
    expect(popped.length).toBe(100_000);
    let mismatches = 0;
    for (let i = 0; i < popped.length; i++) if (popped[i].item !== reference[i].index || popped[i].time !== reference[i].time) mismatches++;
    expect(mismatches).toBe(0);
  });

  it('keeps order when pushes and pops interleave', () => {
    const random = seededRandom(7);
    const heap = new EventHeap<number>(16);
    let last = -Infinity;
    let lastSeq = 0;
    let pushed = 0;
    let popped = 0;
    let base = 0;
    for (let round = 0; round < 20_000; round++) {
      // Like a simulation: new events never earlier than the last popped one.
      const n = Math.floor(random() * 3);
      for (let k = 0; k < n; k++, pushed++) heap.push(base + Math.floor(random() * 50), pushed);
      if (heap.size > 0 && random() < 0.6) {
        heap.pop();
        popped++;
        const ordered = heap.poppedTime > last || (heap.poppedTime === last && heap.poppedSeq > lastSeq);
        expect(ordered).toBe(true);
        last = heap.poppedTime;
        lastSeq = heap.poppedSeq;
        base = last;
      }
    }
    expect(popped).toBeGreaterThan(1000);
  });

  it('rejects a NaN time with INVALID_PARAMETER naming timeNs', () => {
    const heap = new EventHeap<string>();
    let error: unknown;
    try {
      heap.push(Number.NaN, 'x');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DatError);
    expect((error as DatError).status).toBe(DatStatus.INVALID_PARAMETER);
    expect((error as DatError).argument).toBe('timeNs');
    expect(heap.size).toBe(0);
  });

  it('retainQueued keeps only the seqs still queued; clear empties it', () => {
    const heap = new EventHeap<string>();
    const a = heap.push(1, 'a');
    const b = heap.push(2, 'b');
    heap.pop();
    const seqs = new Set([a, b, 999]);
    heap.retainQueued(seqs);
    expect([...seqs]).toEqual([b]);
    heap.clear();
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeUndefined();
  });
});
