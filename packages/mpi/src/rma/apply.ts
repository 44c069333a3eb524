import type { Clock } from '@dapl/core';
import { Op } from '../coll/op.js';
import { packRange, unpackRange, type Datatype, type GatherProgram } from '../datatype/index.js';
import { OP_ELEMENT_NS } from './costs.js';

/** Where an operation lands in a window: `count` elements of `program` from byte `offset`. */
export interface WindowSpan {
  readonly offset: number;
  readonly program: GatherProgram;
  readonly count: number;
}

/**
 * What a target does to its window's bytes, each step charged to the clock. Single-threaded, each
 * call runs to its end before any other message is looked at, so an accumulate is atomic per
 * element (and per operation) against every other one, as MPI requires.
 */
export class WindowMemory {
  constructor(
    readonly bytes: Uint8Array,
    private readonly clock: Clock,
  ) {}

  /** Packed bytes `data[at…]` scattered into the span (put). */
  scatter(span: WindowSpan, data: Uint8Array, at: number): void {
    const n = span.program.size * span.count;
    if (n > 0) unpackRange(span.program, span.count, this.bytes, span.offset, 0, data, at, n);
    this.clock.chargeCopy(n);
  }

  /** The span's bytes, packed (get; the old values of a fetching accumulate). */
  gather(span: WindowSpan): Uint8Array {
    const n = span.program.size * span.count;
    const out = new Uint8Array(n);
    if (n > 0) packRange(span.program, span.count, this.bytes, span.offset, 0, out, 0, n);
    this.clock.chargeCopy(n);
    return out;
  }

  /**
   * `window = data op window` element by element (`element` the predefined type the op works on);
   * returns the values before, packed, when `fetch`.
   */
  accumulate(span: WindowSpan, data: Uint8Array, at: number, op: Op, element: Datatype, fetch: boolean): Uint8Array | undefined {
    const n = span.program.size * span.count;
    if (op === Op.NO_OP) return fetch ? this.gather(span) : undefined;
    if (op === Op.REPLACE) {
      const old = fetch ? this.gather(span) : undefined;
      this.scatter(span, data, at);
      return old;
    }
    const current = this.gather(span);
    const old = fetch ? current.slice() : undefined;
    const elements = n / element.size;
    op.apply(data.subarray(at, at + n), current, elements, element);
    this.clock.charge(elements * OP_ELEMENT_NS);
    this.scatter(span, current, 0);
    return old;
  }

  /** MPI_Compare_and_swap on one element: the old value; `value` stored when the old equals `compare`. */
  compareAndSwap(offset: number, size: number, value: Uint8Array, compare: Uint8Array): Uint8Array {
    const old = this.bytes.slice(offset, offset + size);
    let equal = true;
    for (let i = 0; i < size; i++) if (old[i] !== compare[i]) equal = false;
    if (equal) this.bytes.set(value.subarray(0, size), offset);
    this.clock.chargeCopy(2 * size);
    this.clock.charge(OP_ELEMENT_NS);
    return old;
  }
}
