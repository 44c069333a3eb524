import type { BufferOptions } from '../api/buffer-span.js';
import { requireCount } from '../api/check.js';
import { recursiveDoublingAllreduce, ringAllreduce, ringReduceScatter } from './algorithms/allreduce.js';
import { block, linearScatter, recursiveDoublingScan } from './algorithms/blocks.js';
import { binomialReduceToZero } from './algorithms/tree.js';
import { checkOp, datatypeFor, reduction, spanOf, vector } from './arguments.js';
import type { CollChannel } from './channel.js';
import type { SendBuffer } from './collectives.js';
import { IN_PLACE } from './in-place.js';
import type { Op } from './op.js';
import { packed, unpacked } from './packing.js';
import type { Steps } from './schedule.js';

/**
 * Ring allreduce costs 2(p−1)·α + 2n·β against recursive doubling's log₂p·(α + n·β): it wins only
 * when n·β·(log₂p − 2) > (2p − 2 − log₂p)·α, i.e. from ≈ 10–20 α/β bytes on 8 or more ranks
 * (≈ 64 KiB for α ≈ 5 µs, β ≈ 1 ns/B) and never on 4 or fewer.
 */
const ALLREDUCE_RING_BYTES = 65_536;
const ALLREDUCE_RING_RANKS = 8;

// The global reductions (MPI-3.1 §5.9-5.11) as schedules; a non-commutative op is applied in rank
// order by every algorithm picked for it.

export function* allreduceSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Steps {
  const { input, output, datatype, count } = reduction(sendbuf, recvbuf, op, options, true, 'allreduce');
  const data = packed(input, true).slice();
  const ring = op.commute && data.length >= ALLREDUCE_RING_BYTES && ch.size >= ALLREDUCE_RING_RANKS && count >= ch.size;
  if (!ring) yield* recursiveDoublingAllreduce(ch, data, count, datatype, op);
  else yield* ringAllreduce(ch, data, count, datatype, op);
  unpacked(output!, data, ch);
}

export function reduceScatterBlockSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Steps {
  const datatype = datatypeFor(recvbuf, options.datatype);
  const per = options.count === undefined ? spanOf(recvbuf, { datatype }, 'recvbuf').count : requireCount(options.count, 'count');
  return reduceScatterSteps(ch, sendbuf, recvbuf, Array(ch.size).fill(per), op, { datatype });
}

/** Reduce `sum(recvCounts)` elements and leave block r (recvCounts[r] elements) at rank r. */
export function* reduceScatterSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], op: Op, options: BufferOptions): Steps {
  const datatype = datatypeFor(sendbuf === IN_PLACE ? recvbuf : sendbuf, options.datatype);
  checkOp(op, datatype);
  const { counts, at, extent: total, layout } = vector(ch.size, recvCounts, null, 'recvCounts', 'displs', datatype.size);
  const inPlace = sendbuf === IN_PLACE;
  const input = spanOf(inPlace ? recvbuf : sendbuf, { datatype, count: total }, inPlace ? 'recvbuf' : 'sendbuf');
  const output = spanOf(recvbuf, { datatype, count: counts[ch.rank] }, 'recvbuf');
  const data = packed(input, true).slice();
  const me = ch.rank;
  if (op.commute) {
    // A ring that ends with block r at rank r: rotate so that rank r finishes on its own block.
    yield* ringReduceScatter(ch, data, total, datatype, op, rotated({ start: (b) => at[b], length: (b) => counts[b] }, ch.size, -1));
    unpacked(output, block(data, layout, me), ch);
    return;
  }
  // Non-commutative: reduce in rank order to rank 0, then scatter the blocks.
  yield* binomialReduceToZero(ch, data, total, datatype, op);
  const mine = new Uint8Array(layout.length(me));
  yield* linearScatter(ch, data, mine, 0, layout);
  unpacked(output, mine, ch);
}

export function* scanSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Steps {
  const { input, output, datatype, count } = reduction(sendbuf, recvbuf, op, options, true, 'scan');
  const partial = packed(input, true).slice();
  const result = partial.slice();
  yield* recursiveDoublingScan(ch, partial, result, count, datatype, op, false);
  unpacked(output!, result, ch);
}

/** Exclusive scan: rank 0's `recvbuf` is left unchanged (MPI leaves it undefined). */
export function* exscanSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Steps {
  const { input, output, datatype, count } = reduction(sendbuf, recvbuf, op, options, true, 'exscan');
  const partial = packed(input, true).slice();
  const result = new Uint8Array(partial.length);
  if (yield* recursiveDoublingScan(ch, partial, result, count, datatype, op, true)) unpacked(output!, result, ch);
}

/** The same blocks renumbered so that the ring's final block for rank r is block r (see ringReduceScatter). */
function rotated(b: { start(i: number): number; length(i: number): number }, size: number, by: number) {
  const map = (i: number) => (((i + by) % size) + size) % size;
  return { start: (i: number) => b.start(map(i)), length: (i: number) => b.length(map(i)) };
}
