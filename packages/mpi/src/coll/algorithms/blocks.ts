import type { Datatype } from '../../datatype/index.js';
import type { CollChannel } from '../channel.js';
import type { Op } from '../op.js';
import type { Round, Steps } from '../schedule.js';
import type { Status } from '../../api/status.js';
import { CollTag } from './tree.js';

/** Where each rank's block is in a buffer: byte offset and length per rank. */
export interface BlockLayout {
  offset(rank: number): number;
  length(rank: number): number;
}

export function uniformLayout(blockBytes: number): BlockLayout {
  return { offset: (r) => r * blockBytes, length: () => blockBytes };
}

/**
 * Binomial-tree gather (MPICH): each rank collects its subtree's blocks (contiguous in ranks
 * relative to the root) and passes them up once. Cost ⌈log₂ p⌉ · α + (p−1)/p · nβ at the root.
 * `all` (root only) receives block r of rank r at r · blockBytes; `mine` is this rank's block.
 */
export function* binomialGather(ch: CollChannel, mine: Uint8Array, all: Uint8Array | undefined, root: number, blockBytes: number): Steps {
  const { rank, size } = ch;
  const relative = (rank - root + size) % size;
  let subtree = 1;
  while (subtree < size && (relative & subtree) === 0) subtree <<= 1;
  const held = Math.min(subtree, size - relative);
  const tmp = new Uint8Array(held * blockBytes);
  tmp.set(mine);
  for (let mask = 1; mask < size; mask <<= 1) {
    if ((relative & mask) !== 0) {
      yield ch.isend(tmp.subarray(0, Math.min(mask, size - relative) * blockBytes), (rank - mask + size) % size, CollTag.GATHER);
      return;
    }
    const child = relative + mask;
    if (child >= size) continue;
    const n = Math.min(mask, size - child);
    yield ch.irecv(tmp.subarray(mask * blockBytes, (mask + n) * blockBytes), (child + root) % size, CollTag.GATHER);
  }
  // The root: tmp holds blocks in relative order.
  for (let r = 0; r < size; r++) all!.set(tmp.subarray(r * blockBytes, (r + 1) * blockBytes), ((r + root) % size) * blockBytes);
  ch.clock.chargeCopy(tmp.length);
}

/**
 * Binomial-tree scatter (MPICH), the reverse of `binomialGather`: each rank receives its subtree's
 * blocks once and passes the children's on. Cost ⌈log₂ p⌉ · α + (p−1)/p · nβ at the root.
 */
export function* binomialScatter(ch: CollChannel, all: Uint8Array | undefined, mine: Uint8Array, root: number, blockBytes: number): Steps {
  const { rank, size } = ch;
  const relative = (rank - root + size) % size;
  let mask = 1;
  let tmp: Uint8Array;
  if (relative === 0) {
    tmp = new Uint8Array(size * blockBytes);
    for (let r = 0; r < size; r++) tmp.set(all!.subarray(((r + root) % size) * blockBytes, ((r + root) % size + 1) * blockBytes), r * blockBytes);
    ch.clock.chargeCopy(tmp.length);
    while (mask < size) mask <<= 1;
  } else {
    while ((relative & mask) === 0) mask <<= 1;
    tmp = new Uint8Array(Math.min(mask, size - relative) * blockBytes);
    yield ch.irecv(tmp, (rank - mask + size) % size, CollTag.SCATTER);
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const child = relative + mask;
    if (child >= size) continue;
    const n = Math.min(mask, size - child);
    yield ch.isend(tmp.subarray(mask * blockBytes, (mask + n) * blockBytes), (child + root) % size, CollTag.SCATTER);
  }
  mine.set(tmp.subarray(0, blockBytes));
}

/** Linear gather of blocks of any size (gatherv): the root posts every receive at once. Cost (p − 1) · α + nβ at the root. */
export function* linearGather(ch: CollChannel, mine: Uint8Array, all: Uint8Array | undefined, root: number, layout: BlockLayout | undefined): Steps {
  const { rank, size } = ch;
  if (rank !== root) {
    yield ch.isend(mine, root, CollTag.GATHER);
    return;
  }
  const requests = [];
  for (let r = 0; r < size; r++) {
    if (r !== rank) requests.push(ch.irecv(block(all!, layout!, r), r, CollTag.GATHER));
  }
  yield requests;
  // Our own block last: if it does not fit, the others' have still been taken (the job goes on).
  ch.copy(mine, block(all!, layout!, rank));
}

/** Linear scatter of blocks of any size (scatterv); the bytes of this rank's block, at the start of `mine`. Cost (p − 1) · α + nβ at the root. */
export function* linearScatter(ch: CollChannel, all: Uint8Array | undefined, mine: Uint8Array, root: number, layout: BlockLayout | undefined): Generator<Round, number, Status | undefined> {
  const { rank, size } = ch;
  if (rank !== root) return (yield ch.irecv(mine, root, CollTag.SCATTER))!.count;
  const requests = [];
  for (let r = 0; r < size; r++) {
    if (r !== rank) requests.push(ch.isend(block(all!, layout!, r), r, CollTag.SCATTER));
  }
  yield requests;
  const own = block(all!, layout!, rank);
  ch.copy(own, mine);
  return own.length;
}

/** Block `r` of `all` as `layout` places it. */
export function block(all: Uint8Array, layout: BlockLayout, r: number): Uint8Array {
  const at = layout.offset(r);
  return all.subarray(at, at + layout.length(r));
}

/**
 * Recursive-doubling allgather (power-of-two p): at step 2^k ranks exchange everything they hold
 * with the rank 2^k away, doubling it. Cost log₂ p · α + (p−1)/p · nβ: for short messages.
 * `all` holds this rank's block in place on entry.
 */
export function* recursiveDoublingAllgather(ch: CollChannel, all: Uint8Array, blockBytes: number): Steps {
  const { rank, size } = ch;
  for (let mask = 1; mask < size; mask <<= 1) {
    const partner = rank ^ mask;
    const mineAt = (rank & ~(mask - 1)) * blockBytes;
    const theirsAt = (partner & ~(mask - 1)) * blockBytes;
    yield ch.exchange(all.subarray(mineAt, mineAt + mask * blockBytes), partner, all.subarray(theirsAt, theirsAt + mask * blockBytes), partner, CollTag.ALLGATHER);
  }
}

/** Ring allgather of blocks laid out by `layout` (allgather for long messages, allgatherv): p − 1 steps, cost (p−1) · α + (p−1)/p · nβ. */
export function* ringAllgather(ch: CollChannel, all: Uint8Array, layout: BlockLayout): Steps {
  const { rank, size } = ch;
  const right = (rank + 1) % size;
  const left = (rank - 1 + size) % size;
  for (let step = 0; step < size - 1; step++) {
    yield ch.exchange(block(all, layout, (rank - step + size) % size), right, block(all, layout, (rank - step - 1 + size) % size), left, CollTag.ALLGATHER);
  }
}

/**
 * Pairwise-exchange alltoall(v) (MPICH for long messages): in step i rank r sends to r + i and
 * receives from r − i, so every step is a perfect matching and no rank is swamped. Cost
 * (p − 1) · (α + n/p · β).
 */
export function* pairwiseAlltoall(ch: CollChannel, send: Uint8Array, sendLayout: BlockLayout, recv: Uint8Array, recvLayout: BlockLayout): Steps {
  const { rank, size } = ch;
  for (let i = 1; i < size; i++) {
    const dst = (rank + i) % size;
    const src = (rank - i + size) % size;
    yield ch.exchange(block(send, sendLayout, dst), dst, block(recv, recvLayout, src), src, CollTag.ALLTOALL);
  }
  // Our own block last: if it does not fit, every exchange has still been made (the job goes on).
  ch.copy(block(send, sendLayout, rank), block(recv, recvLayout, rank));
}

/**
 * Recursive-doubling scan (MPICH): `partial` is the reduction of a growing block of ranks around
 * this one; what comes from lower ranks is put in front, so any associative op works. Inclusive:
 * `result` starts as this rank's data; exclusive: `result` is filled from the lower ranks only and
 * `hasResult` says whether any came. Cost ⌈log₂ p⌉ · (α + nβ + 2nγ).
 */
export function* recursiveDoublingScan(ch: CollChannel, partial: Uint8Array, result: Uint8Array, count: number, datatype: Datatype, op: Op, exclusive: boolean): Generator<Round, boolean, Status | undefined> {
  const { rank, size } = ch;
  const tmp = new Uint8Array(partial.length);
  let hasResult = !exclusive;
  for (let mask = 1; mask < size; mask <<= 1) {
    const dst = rank ^ mask;
    if (dst >= size) continue;
    yield ch.exchange(partial, dst, tmp, dst, CollTag.SCAN);
    if (rank > dst) {
      // tmp covers lower ranks: it goes in front.
      op.apply(tmp, partial, count, datatype);
      if (hasResult) op.apply(tmp, result, count, datatype);
      else {
        result.set(tmp);
        hasResult = true;
      }
    } else if (op.commute) op.apply(tmp, partial, count, datatype);
    else {
      op.apply(partial, tmp, count, datatype);
      partial.set(tmp);
    }
    ch.clock.chargeCopy(2 * partial.length);
  }
  return hasResult;
}
