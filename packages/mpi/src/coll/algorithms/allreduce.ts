import type { Datatype } from '../../datatype/index.js';
import type { CollChannel } from '../channel.js';
import type { Op } from '../op.js';
import type { Steps } from '../schedule.js';
import { CollTag } from './tree.js';

/** `count` elements cut into `parts` blocks whose sizes differ by at most one: block b's first element and length. */
export function blocks(count: number, parts: number): { start(b: number): number; length(b: number): number } {
  const base = Math.floor(count / parts);
  const extra = count % parts;
  return {
    start: (b) => b * base + Math.min(b, extra),
    length: (b) => base + (b < extra ? 1 : 0),
  };
}

/**
 * Recursive-doubling allreduce (MPICH) with the non-power-of-two fix-up: the first 2·rem ranks pair
 * up (even into odd) so that a power of two take part, exchange and combine log₂ p' times, then the
 * odd ranks hand the result back. Combining always puts the lower ranks' data first, so any
 * associative op works. Cost (⌈log₂ p⌉ + 2) · (α + nβ + nγ) at most: for short messages.
 */
export function* recursiveDoublingAllreduce(ch: CollChannel, data: Uint8Array, count: number, datatype: Datatype, op: Op): Steps {
  const { rank, size } = ch;
  if (size === 1) return;
  const tmp = new Uint8Array(data.length);
  let pof2 = 1;
  while (pof2 * 2 <= size) pof2 *= 2;
  const rem = size - pof2;
  let newrank: number;
  if (rank < 2 * rem) {
    if (rank % 2 === 0) {
      yield ch.isend(data, rank + 1, CollTag.ALLREDUCE);
      newrank = -1;
    } else {
      yield ch.irecv(tmp, rank - 1, CollTag.ALLREDUCE);
      op.apply(tmp, data, count, datatype); // data = lower (rank − 1) op mine
      ch.clock.chargeCopy(data.length);
      newrank = rank >> 1;
    }
  } else newrank = rank - rem;
  if (newrank !== -1) {
    for (let mask = 1; mask < pof2; mask <<= 1) {
      const newdst = newrank ^ mask;
      const dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      yield ch.exchange(data, dst, tmp, dst, CollTag.ALLREDUCE);
      if (dst < rank || op.commute) op.apply(tmp, data, count, datatype);
      else {
        op.apply(data, tmp, count, datatype); // tmp = mine op higher
        data.set(tmp);
      }
      ch.clock.chargeCopy(data.length);
    }
  }
  if (rank < 2 * rem) {
    if (rank % 2 === 1) yield ch.isend(data, rank - 1, CollTag.ALLREDUCE);
    else yield ch.irecv(data, rank + 1, CollTag.ALLREDUCE);
  }
}

/**
 * Ring allreduce for long vectors and commutative ops: a ring reduce-scatter (p − 1 steps, each
 * rank ends with one fully reduced block) then a ring allgather (p − 1 steps). Bandwidth-optimal
 * for any p, so it needs no power-of-two fix-up: cost 2(p−1) · α + 2 · (p−1)/p · nβ + (p−1)/p · nγ.
 */
export function* ringAllreduce(ch: CollChannel, data: Uint8Array, count: number, datatype: Datatype, op: Op): Steps {
  const size = ch.size;
  if (size === 1) return;
  yield* ringReduceScatter(ch, data, count, datatype, op, blocks(count, size));
  yield* ringAllgatherBlocks(ch, data, datatype.size, blocks(count, size), 1);
}

type Blocks = ReturnType<typeof blocks>;

/**
 * Ring reduce-scatter of `data` cut into `b` blocks (commutative ops): after p − 1 steps rank r
 * holds block (r + 1) mod p fully reduced, in place.
 */
export function* ringReduceScatter(ch: CollChannel, data: Uint8Array, _count: number, datatype: Datatype, op: Op, b: Blocks): Steps {
  const { rank, size } = ch;
  const e = datatype.size;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  let longest = 0;
  for (let i = 0; i < size; i++) longest = Math.max(longest, b.length(i));
  const tmp = new Uint8Array(longest * e);
  for (let step = 0; step < size - 1; step++) {
    const out = (rank - step + size) % size;
    const into = (rank - step - 1 + size) % size;
    const incoming = tmp.subarray(0, b.length(into) * e);
    yield ch.exchange(data.subarray(b.start(out) * e, (b.start(out) + b.length(out)) * e), right, incoming, left, CollTag.REDUCE_SCATTER);
    const target = data.subarray(b.start(into) * e, (b.start(into) + b.length(into)) * e);
    op.apply(incoming, target, b.length(into), datatype);
    ch.clock.chargeCopy(target.length);
  }
}

/**
 * Ring allgather of blocks in place: rank r starts owning block (r + shift) mod p; after p − 1 steps
 * every rank has every block. Cost (p − 1) · α + (p−1)/p · nβ.
 */
export function* ringAllgatherBlocks(ch: CollChannel, data: Uint8Array, elementBytes: number, b: Blocks, shift: number): Steps {
  const { rank, size } = ch;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  const slice = (i: number) => data.subarray(b.start(i) * elementBytes, (b.start(i) + b.length(i)) * elementBytes);
  for (let step = 0; step < size - 1; step++) {
    const out = (rank + shift - step + size) % size;
    const into = (rank + shift - step - 1 + size) % size;
    yield ch.exchange(slice(out), right, slice(into), left, CollTag.ALLGATHER);
  }
}
