/**
 * A growable ring buffer: O(1) push/shift without the O(n) `Array.prototype.shift`, and no
 * allocation per element once it has grown. Used for DTO queues and the MPI device's per-peer
 * backlog, which the hot path touches.
 */
export class Fifo<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 16) {
    let capacity = 1;
    while (capacity < initialCapacity) capacity <<= 1;
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Append `item` at the tail, growing the ring when full. */
  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count++;
  }

  /** Remove and return the head, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return item;
  }

  /** The head without removing it, or undefined when empty. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  /** The i-th oldest element (0 = head). */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.count) return undefined;
    return this.items[(this.head + index) & (this.items.length - 1)];
  }

  /** Remove and return every element, oldest first. */
  drain(): T[] {
    const out: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) out.push(item);
    return out;
  }

  private grow(): void {
    const old = this.items;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.items = next;
    this.head = 0;
  }
}
