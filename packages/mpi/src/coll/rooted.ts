import type { BufferSpan } from '../adi/transfer.js';
import type { BufferOptions } from '../api/buffer-span.js';
import { ErrorClass, MpiError } from '../api/errors.js';
import { binomialGather, binomialScatter, block, linearGather, linearScatter, uniformLayout, type BlockLayout } from './algorithms/blocks.js';
import { binomialBcast, binomialReduceToZero, scatterAllgatherBcast, CollTag } from './algorithms/tree.js';
import { inPlaceAtRoot, receiveCount, reduction, requireRoot, sideType, sides, spanOf, vector, type CollectiveOptions } from './arguments.js';
import type { CollChannel } from './channel.js';
import type { SendBuffer } from './collectives.js';
import type { InPlace } from './in-place.js';
import type { Op } from './op.js';
import { packed, unpacked } from './packing.js';
import type { Steps } from './schedule.js';

/** Switch points (bytes of the whole message), as MPICH's defaults. */
const BCAST_SHORT = 12_288;
const BCAST_MIN_RANKS_FOR_SCATTER = 8;
const GATHER_BINOMIAL_LIMIT = 1 << 20;

// The rooted collectives (MPI-3.1 §5.4-5.6, 5.9) as schedules: each checks its arguments the same
// way on every rank before its first round, works on packed bytes (a contiguous buffer in place,
// another packed and unpacked around the algorithm) and picks the algorithm by size.

/** Broadcast of packed bytes: binomial tree for short messages or few ranks, else scatter + allgather. */
export function bcastBytes(ch: CollChannel, data: Uint8Array, root: number): Steps {
  return data.length < BCAST_SHORT || ch.size < BCAST_MIN_RANKS_FOR_SCATTER ? binomialBcast(ch, data, root) : scatterAllgatherBcast(ch, data, root);
}

/** The root's buffer in packed form, and where it goes back (`bcast`'s checks). */
export function bcastBuffer(ch: CollChannel, buf: ArrayBufferView, root: number, options: BufferOptions): { root: number; span: BufferSpan; data: Uint8Array } {
  const r = requireRoot(ch, root);
  const span = spanOf(buf, options, 'buf');
  return { root: r, span, data: packed(span, ch.rank === r) };
}

export function* bcastSteps(ch: CollChannel, buf: ArrayBufferView, root: number, options: BufferOptions): Steps {
  const { root: r, span, data } = bcastBuffer(ch, buf, root, options);
  yield* bcastBytes(ch, data, r);
  unpacked(span, data, ch);
}

export function* reduceSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options: BufferOptions): Steps {
  const r = requireRoot(ch, root);
  const isRoot = ch.rank === r;
  const { input, output, datatype, count } = reduction(sendbuf, isRoot ? recvbuf : null, op, options, isRoot, 'reduce');
  const acc = packed(input, true).slice();
  yield* binomialReduceToZero(ch, acc, count, datatype, op);
  // The result is at rank 0 (rank order needs the tree rooted there); move it to the root.
  if (r !== 0) {
    if (ch.rank === 0) yield ch.isend(acc, r, CollTag.REDUCE);
    else if (isRoot) yield ch.irecv(acc, 0, CollTag.REDUCE);
  }
  if (isRoot) unpacked(output!, acc, ch);
}

/** The root's own block of `blockBytes` (a longer one is an ERR_TRUNCATE, raised once every other block has moved). */
function ownBlock(mine: Uint8Array, blockBytes: number): { block: Uint8Array; tooLong: MpiError | undefined } {
  if (mine.length <= blockBytes) return { block: mine.length === blockBytes ? mine : padded(mine, blockBytes), tooLong: undefined };
  const tooLong = new MpiError(ErrorClass.ERR_TRUNCATE, `the root's own block is ${mine.length} bytes, a block of the receive side holds ${blockBytes}`, { argument: 'sendbuf' });
  return { block: mine.subarray(0, blockBytes), tooLong };
}

function padded(bytes: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(bytes);
  return out;
}

export function* gatherSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, root: number, options: CollectiveOptions): Steps {
  const r = requireRoot(ch, root);
  const isRoot = ch.rank === r;
  const s = sides(options);
  const inPlace = inPlaceAtRoot(sendbuf, isRoot, 'gather at the root');
  let mine = inPlace ? undefined : packed(spanOf(sendbuf, { datatype: sideType(s, 'send', sendbuf, sendbuf, 'sendbuf'), count: s.send.count }, 'sendbuf'), true);
  let all: BufferSpan | undefined;
  let allBytes: Uint8Array | undefined;
  let blockBytes = mine?.length ?? 0;
  let tooLong: MpiError | undefined;
  if (isRoot) {
    const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
    const per = receiveCount(s.recv.count, mine?.length, rt, () => spanOf(recvbuf, { datatype: rt }, 'recvbuf').count, ch.size, s.twoSided ? 'options.recv.count' : 'count');
    blockBytes = per * rt.size;
    all = spanOf(recvbuf, { datatype: rt, count: per * ch.size }, 'recvbuf');
    allBytes = packed(all, inPlace);
    if (inPlace) mine = allBytes.slice(r * blockBytes, (r + 1) * blockBytes);
    else ({ block: mine, tooLong } = ownBlock(mine!, blockBytes));
  }
  if (blockBytes * ch.size <= GATHER_BINOMIAL_LIMIT) yield* binomialGather(ch, mine!, allBytes, r, blockBytes);
  else yield* linearGather(ch, mine!, allBytes, r, uniformLayout(blockBytes));
  if (tooLong !== undefined) throw tooLong;
  if (all !== undefined) unpacked(all, allBytes!, ch);
}

export function* gathervSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, recvCounts: readonly number[] | null, displs: readonly number[] | null, root: number, options: CollectiveOptions): Steps {
  const r = requireRoot(ch, root);
  const isRoot = ch.rank === r;
  const s = sides(options);
  const inPlace = inPlaceAtRoot(sendbuf, isRoot, 'gatherv at the root');
  let layout: BlockLayout | undefined;
  let all: BufferSpan | undefined;
  if (isRoot) {
    const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
    const v = vector(ch.size, recvCounts, displs, 'recvCounts', 'displs', rt.size);
    all = spanOf(recvbuf, { datatype: rt, count: v.extent }, 'recvbuf');
    layout = v.layout;
  }
  const allBytes = all === undefined ? undefined : packed(all, true);
  const mine = inPlace
    ? block(allBytes!, layout!, r).slice()
    : packed(spanOf(sendbuf, { datatype: sideType(s, 'send', sendbuf, sendbuf, 'sendbuf'), count: s.send.count }, 'sendbuf'), true);
  yield* linearGather(ch, mine, allBytes, r, layout);
  if (all !== undefined) unpacked(all, allBytes!, ch);
}

export function* scatterSteps(ch: CollChannel, sendbuf: ArrayBufferView | null, recvbuf: ArrayBufferView | InPlace, root: number, options: CollectiveOptions): Steps {
  const r = requireRoot(ch, root);
  const isRoot = ch.rank === r;
  const s = sides(options);
  const inPlace = inPlaceAtRoot(recvbuf, isRoot, 'scatter at the root (as recvbuf)', 'recvbuf');
  const out = inPlace ? undefined : spanOf(recvbuf, { datatype: sideType(s, 'recv', recvbuf, recvbuf, 'recvbuf'), count: s.recv.count }, 'recvbuf');
  let all: Uint8Array | undefined;
  let blockBytes = out?.size ?? 0;
  if (isRoot) {
    const st = sideType(s, 'send', sendbuf, inPlace ? sendbuf : recvbuf, 'sendbuf');
    const per = receiveCount(s.send.count, out?.size, st, () => spanOf(sendbuf, { datatype: st }, 'sendbuf').count, ch.size, s.twoSided ? 'options.send.count' : 'count');
    blockBytes = per * st.size;
    all = packed(spanOf(sendbuf, { datatype: st, count: per * ch.size }, 'sendbuf'), true);
  }
  const mine = new Uint8Array(blockBytes);
  if (blockBytes * ch.size <= GATHER_BINOMIAL_LIMIT) yield* binomialScatter(ch, all, mine, r, blockBytes);
  else yield* linearScatter(ch, all, mine, r, uniformLayout(blockBytes));
  if (out === undefined) return;
  if (out.size < blockBytes) throw new MpiError(ErrorClass.ERR_TRUNCATE, `recvbuf holds ${out.size} bytes, the root's own block is ${blockBytes}`, { argument: 'recvbuf' });
  unpacked(out, mine, ch);
}

export function* scattervSteps(ch: CollChannel, sendbuf: ArrayBufferView | null, sendCounts: readonly number[] | null, displs: readonly number[] | null, recvbuf: ArrayBufferView | InPlace, root: number, options: CollectiveOptions): Steps {
  const r = requireRoot(ch, root);
  const isRoot = ch.rank === r;
  const s = sides(options);
  const inPlace = inPlaceAtRoot(recvbuf, isRoot, 'scatterv at the root (as recvbuf)', 'recvbuf');
  let layout: BlockLayout | undefined;
  let all: Uint8Array | undefined;
  if (isRoot) {
    const st = sideType(s, 'send', sendbuf, inPlace ? sendbuf : recvbuf, 'sendbuf');
    const v = vector(ch.size, sendCounts, displs, 'sendCounts', 'displs', st.size);
    all = packed(spanOf(sendbuf, { datatype: st, count: v.extent }, 'sendbuf'), true);
    layout = v.layout;
  }
  const out = inPlace ? undefined : spanOf(recvbuf, { datatype: sideType(s, 'recv', recvbuf, recvbuf, 'recvbuf'), count: s.recv.count }, 'recvbuf');
  const mine = new Uint8Array(isRoot ? layout!.length(r) : out!.size);
  const got = yield* linearScatter(ch, all, mine, r, layout);
  if (out === undefined) return;
  // Only the block that came: the rest of a larger receive buffer stays as it was.
  if (got > out.size) throw new MpiError(ErrorClass.ERR_TRUNCATE, `recvbuf holds ${out.size} bytes, the root's own block is ${got}`, { argument: 'recvbuf' });
  unpacked(out, mine.subarray(0, got), ch);
}
