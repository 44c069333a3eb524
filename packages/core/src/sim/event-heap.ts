import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/**
 * A binary min-heap of events keyed by (time, seq): `seq` is an insertion counter, so events at
 * equal times come out in the order they went in — the simulator's determinism rests on it.
 *
 * Entries live in parallel arrays (time, seq, item, data), so a push allocates nothing once the
 * arrays have grown, and `pop()` returns the item and leaves the rest of the entry in `popped*`
 * rather than in a fresh object.
 */
export class EventHeap<T, D = undefined> {
  private times: Float64Array;
  private seqs: Float64Array;
  private items: (T | undefined)[];
  private datas: (D | undefined)[];
  private count = 0;
  private nextSeq = 1;
  /** Time of the entry the last `pop()` returned. */
  poppedTime = 0;
  /** Seq (the handle `push` returned) of the entry the last `pop()` returned. */
  poppedSeq = 0;
  /** Data of the entry the last `pop()` returned. */
  poppedData: D | undefined = undefined;

  constructor(initialCapacity = 1024) {
    const capacity = Math.max(16, Math.floor(initialCapacity));
    this.times = new Float64Array(capacity);
    this.seqs = new Float64Array(capacity);
    this.items = new Array<T | undefined>(capacity);
    this.datas = new Array<D | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Time of the earliest entry; `Infinity` when empty. */
  peekTime(): number {
    return this.count === 0 ? Infinity : this.times[0];
  }

  /** Seq of the earliest entry; 0 when empty. */
  peekSeq(): number {
    return this.count === 0 ? 0 : this.seqs[0];
  }

  /** Adds an entry; returns its seq (≥ 1, increasing), which callers may use as a handle. */
  push(timeNs: number, item: T, data?: D): number {
    if (Number.isNaN(timeNs)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, 'timeNs must be a number, got NaN', { argument: 'timeNs' });
    }
    if (this.count === this.times.length) this.grow();
    const seq = this.nextSeq++;
    // Sift up with a hole: move parents down until the new entry's place is found.
    let i = this.count++;
    const times = this.times;
    const seqs = this.seqs;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent];
      if (pt < timeNs || (pt === timeNs && seqs[parent] < seq)) break;
      this.move(parent, i);
      i = parent;
    }
    times[i] = timeNs;
    seqs[i] = seq;
    this.items[i] = item;
    this.datas[i] = data;
    return seq;
  }

  /** Removes the earliest entry and returns its item (its time, seq and data go to `popped*`). */
  pop(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[0];
    this.poppedTime = this.times[0];
    this.poppedSeq = this.seqs[0];
    this.poppedData = this.datas[0];
    const last = --this.count;
    if (last > 0) this.siftDownFrom(last);
    this.items[last] = undefined;
    this.datas[last] = undefined;
    return item;
  }

  /** Deletes from `seqs` every seq that is no longer queued (O(size + seqs); for pruning stale cancellations). */
  retainQueued(seqs: Set<number>): void {
    const queued = new Set<number>();
    for (let i = 0; i < this.count; i++) queued.add(this.seqs[i]);
    for (const seq of seqs) if (!queued.has(seq)) seqs.delete(seq);
  }

  /** Drop every queued event. */
  clear(): void {
    this.items.fill(undefined, 0, this.count);
    this.datas.fill(undefined, 0, this.count);
    this.count = 0;
  }

  /** Moves the entry at `last` into the root's hole and sifts it down. */
  private siftDownFrom(last: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const t = times[last];
    const s = seqs[last];
    const item = this.items[last];
    const data = this.datas[last];
    const n = last;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (times[right] < times[child] || (times[right] === times[child] && seqs[right] < seqs[child]))) child = right;
      const ct = times[child];
      if (ct > t || (ct === t && seqs[child] > s)) break;
      this.move(child, i);
      i = child;
    }
    times[i] = t;
    seqs[i] = s;
    this.items[i] = item;
    this.datas[i] = data;
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from];
    this.seqs[to] = this.seqs[from];
    this.items[to] = this.items[from];
    this.datas[to] = this.datas[from];
  }

  private grow(): void {
    const capacity = this.times.length * 2;
    const times = new Float64Array(capacity);
    times.set(this.times);
    const seqs = new Float64Array(capacity);
    seqs.set(this.seqs);
    this.times = times;
    this.seqs = seqs;
    this.items.length = capacity;
    this.datas.length = capacity;
  }
}
