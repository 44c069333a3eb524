import type { Datatype } from '../../datatype/index.js';
import type { CollChannel } from '../channel.js';
import type { Op } from '../op.js';
import type { Steps } from '../schedule.js';

/** Tags of the library's collective traffic (on the collective context, never the user's). */
export const enum CollTag {
  BARRIER = 1,
  BCAST = 2,
  REDUCE = 3,
  ALLREDUCE = 4,
  GATHER = 5,
  SCATTER = 6,
  ALLGATHER = 7,
  ALLTOALL = 8,
  SCAN = 9,
  REDUCE_SCATTER = 10,
  /** The library's own exchanges (communicator creation). */
  INTERNAL = 11,
}

/**
 * Dissemination barrier (Hensgen, Finkel, Manber): ⌈log₂ p⌉ rounds; in round k each rank signals
 * rank + 2^k and waits for rank − 2^k. Cost ⌈log₂ p⌉ · α, any p.
 */
export function* disseminationBarrier(ch: CollChannel): Steps {
  const none = new Uint8Array(0);
  const { rank, size } = ch;
  for (let mask = 1; mask < size; mask <<= 1) yield ch.exchange(none, (rank + mask) % size, none, (rank - mask + size) % size, CollTag.BARRIER);
}

/**
 * Binomial-tree broadcast (MPICH): ⌈log₂ p⌉ rounds, each rank receives once from its parent and
 * forwards to its children. Cost ⌈log₂ p⌉ · (α + nβ): best for short messages.
 */
export function* binomialBcast(ch: CollChannel, data: Uint8Array, root: number): Steps {
  const { rank, size } = ch;
  const relative = (rank - root + size) % size;
  let mask = 1;
  while (mask < size) {
    if ((relative & mask) !== 0) {
      yield ch.irecv(data, (rank - mask + size) % size, CollTag.BCAST);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  const sends = [];
  for (; mask > 0; mask >>= 1) if (relative + mask < size) sends.push(ch.isend(data, (rank + mask) % size, CollTag.BCAST));
  yield sends;
}

/**
 * Broadcast of a long message by scatter then ring allgather (van de Geijn): the root scatters
 * p chunks down a binomial tree, then p − 1 ring steps give everyone every chunk. Cost
 * (⌈log₂ p⌉ + p − 1) · α + 2 · (p−1)/p · nβ: the root sends n once instead of log p times.
 */
export function* scatterAllgatherBcast(ch: CollChannel, data: Uint8Array, root: number): Steps {
  const { rank, size } = ch;
  const n = data.length;
  const chunk = Math.ceil(n / size);
  const relative = (rank - root + size) % size;
  const range = (r: number): [number, number] => [Math.min(r * chunk, n), Math.min((r + 1) * chunk, n)];
  // Binomial scatter: a node with relative rank r holds chunks [r, r + subtree) after it.
  let mask = 1;
  while (mask < size) {
    if ((relative & mask) !== 0) {
      const [from] = range(relative);
      const [, to] = range(Math.min(relative + mask, size) - 1);
      yield ch.irecv(data.subarray(from, to), (rank - mask + size) % size, CollTag.BCAST);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  for (; mask > 0; mask >>= 1) {
    if (relative + mask >= size) continue;
    const [from] = range(relative + mask);
    const [, to] = range(Math.min(relative + 2 * mask, size) - 1);
    yield ch.isend(data.subarray(from, to), (rank + mask) % size, CollTag.BCAST);
  }
  // Ring allgather of the chunks, in relative ranks.
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  for (let step = 0; step < size - 1; step++) {
    const [sf, st] = range((relative - step + size) % size);
    const [rf, rt] = range((relative - step - 1 + size) % size);
    yield ch.exchange(data.subarray(sf, st), right, data.subarray(rf, rt), left, CollTag.BCAST);
  }
}

/**
 * Binomial-tree reduce to rank 0 of `count` packed elements; the result ends in `acc` at rank 0
 * (`acc` holds this rank's contribution on entry and is overwritten everywhere). At step 2^k a rank
 * combines what rank + 2^k holds, which is always the next higher block of ranks, so the result is
 * in rank order and any associative op works, commutative or not. Cost ⌈log₂ p⌉ · (α + nβ + nγ).
 */
export function* binomialReduceToZero(ch: CollChannel, acc: Uint8Array, count: number, datatype: Datatype, op: Op): Steps {
  const { rank, size } = ch;
  const incoming = new Uint8Array(acc.length);
  for (let mask = 1; mask < size; mask <<= 1) {
    if ((rank & mask) !== 0) {
      yield ch.isend(acc, rank - mask, CollTag.REDUCE);
      return;
    }
    const from = rank + mask;
    if (from >= size) continue;
    yield ch.irecv(incoming, from, CollTag.REDUCE);
    // acc (lower ranks) op incoming (higher ranks), left in acc.
    combineInOrder(ch, op, acc, incoming, count, datatype);
  }
}

/**
 * `lower = lower op higher` in rank order: a user function leaves its result in its second argument,
 * so a non-commutative op is applied into `higher`, then copied back.
 */
export function combineInOrder(ch: CollChannel, op: Op, lower: Uint8Array, higher: Uint8Array, count: number, datatype: Datatype): void {
  if (op.commute) op.apply(higher, lower, count, datatype);
  else {
    op.apply(lower, higher, count, datatype);
    lower.set(higher);
  }
  ch.clock.chargeCopy(lower.length);
}
