import type { BufferSpan } from '../adi/transfer.js';
import { requireCount } from '../api/check.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { Datatype } from '../datatype/index.js';
import { block, pairwiseAlltoall, recursiveDoublingAllgather, ringAllgather, uniformLayout, type BlockLayout } from './algorithms/blocks.js';
import { countList, receiveCount, sideType, sides, spanOf, vector, type CollectiveOptions } from './arguments.js';
import type { CollChannel } from './channel.js';
import type { SendBuffer } from './collectives.js';
import { IN_PLACE } from './in-place.js';
import { packed, snapshot, unpacked } from './packing.js';
import type { Steps } from './schedule.js';

const ALLGATHER_SHORT = 81_920;

// Allgather and alltoall in their forms (MPI-3.1 §5.7-5.8) as schedules; each side of the exchange
// may have its own datatype (see CollectiveOptions), only the bytes per block must agree.

export function* allgatherSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Steps {
  const s = sides(options);
  const inPlace = sendbuf === IN_PLACE;
  const mine = inPlace ? undefined : packed(spanOf(sendbuf, { datatype: sideType(s, 'send', sendbuf, sendbuf, 'sendbuf'), count: s.send.count }, 'sendbuf'), true);
  const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
  const per = receiveCount(s.recv.count, mine?.length, rt, () => spanOf(recvbuf, { datatype: rt }, 'recvbuf').count, ch.size, s.twoSided ? 'options.recv.count' : 'count');
  const blockBytes = per * rt.size;
  const all = spanOf(recvbuf, { datatype: rt, count: per * ch.size }, 'recvbuf');
  const allBytes = packed(all, true);
  const tooLong = mine === undefined ? undefined : ownBlockInto(ch, mine, allBytes, ch.rank * blockBytes, blockBytes);
  const size = ch.size;
  if ((size & (size - 1)) === 0 && allBytes.length < ALLGATHER_SHORT) yield* recursiveDoublingAllgather(ch, allBytes, blockBytes);
  else yield* ringAllgather(ch, allBytes, uniformLayout(blockBytes));
  if (tooLong !== undefined) throw tooLong;
  unpacked(all, allBytes, ch);
}

export function* allgathervSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options: CollectiveOptions): Steps {
  const s = sides(options);
  const inPlace = sendbuf === IN_PLACE;
  const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
  const { counts, at, extent, layout } = vector(ch.size, recvCounts, displs, 'recvCounts', 'displs', rt.size);
  const all = spanOf(recvbuf, { datatype: rt, count: extent }, 'recvbuf');
  const allBytes = packed(all, true);
  const rank = ch.rank;
  let tooLong: MpiError | undefined;
  if (!inPlace) {
    const count = s.twoSided ? s.send.count : counts[rank];
    const mine = packed(spanOf(sendbuf, { datatype: sideType(s, 'send', sendbuf, sendbuf, 'sendbuf'), count }, 'sendbuf'), true);
    tooLong = ownBlockInto(ch, mine, allBytes, at[rank] * rt.size, layout.length(rank));
  }
  yield* ringAllgather(ch, allBytes, layout);
  if (tooLong !== undefined) throw tooLong;
  unpacked(all, allBytes, ch);
}

/**
 * This rank's own block into its place: at most `room` bytes. A longer block is this rank's
 * ERR_TRUNCATE, returned to be raised once the exchange is done (the others' blocks still move,
 * so the job goes on).
 */
function ownBlockInto(ch: CollChannel, mine: Uint8Array, all: Uint8Array, at: number, room: number): MpiError | undefined {
  ch.copy(mine.subarray(0, room), all, at);
  if (mine.length <= room) return undefined;
  return new MpiError(ErrorClass.ERR_TRUNCATE, `sendbuf's block is ${mine.length} bytes, its place in recvbuf holds ${room}`, { argument: 'sendbuf' });
}

/** IN_PLACE (MPI-2.2): the data to send is in `recvbuf`, which a copy frees for the results. */
export function* alltoallSteps(ch: CollChannel, sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Steps {
  const s = sides(options);
  const inPlace = sendbuf === IN_PLACE;
  const size = ch.size;
  let send: BufferSpan | undefined;
  if (!inPlace) {
    const st = sideType(s, 'send', sendbuf, sendbuf, 'sendbuf');
    const per = s.send.count === undefined ? Math.floor(spanOf(sendbuf, { datatype: st }, 'sendbuf').count / size) : requireCount(s.send.count, s.twoSided ? 'options.send.count' : 'count');
    send = spanOf(sendbuf, { datatype: st, count: per * size }, 'sendbuf');
  }
  const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
  const recvPer = receiveCount(s.recv.count, send === undefined ? undefined : send.size / size, rt, () => spanOf(recvbuf, { datatype: rt }, 'recvbuf').count, size, s.twoSided ? 'options.recv.count' : 'count');
  const recv = spanOf(recvbuf, { datatype: rt, count: recvPer * size }, 'recvbuf');
  const recvLayout = uniformLayout(recvPer * rt.size);
  const sendBytes = send === undefined ? snapshot(recv, ch) : packed(send, true);
  const recvBytes = packed(recv, false);
  yield* pairwiseAlltoall(ch, sendBytes, send === undefined ? recvLayout : uniformLayout(send.size / size), recvBytes, recvLayout);
  unpacked(recv, recvBytes, ch);
}

/** IN_PLACE (MPI-2.2): the data to send is in `recvbuf`, laid out by the receive counts and displacements. */
export function* alltoallvSteps(
  ch: CollChannel,
  sendbuf: SendBuffer,
  sendCounts: readonly number[] | null,
  sdispls: readonly number[] | null,
  recvbuf: ArrayBufferView,
  recvCounts: readonly number[],
  rdispls: readonly number[] | null,
  options: CollectiveOptions,
): Steps {
  const s = sides(options);
  const inPlace = sendbuf === IN_PLACE;
  const rt = sideType(s, 'recv', recvbuf, inPlace ? recvbuf : sendbuf, 'recvbuf');
  const st = inPlace ? rt : sideType(s, 'send', sendbuf, sendbuf, 'sendbuf');
  const sv = inPlace ? undefined : vector(ch.size, sendCounts, sdispls, 'sendCounts', 'sdispls', st.size);
  const rv = vector(ch.size, recvCounts, rdispls, 'recvCounts', 'rdispls', rt.size);
  const send = sv === undefined ? undefined : spanOf(sendbuf, { datatype: st, count: sv.extent }, 'sendbuf');
  const recv = spanOf(recvbuf, { datatype: rt, count: rv.extent }, 'recvbuf');
  const sendBytes = send === undefined ? snapshot(recv, ch) : packed(send, true);
  const recvBytes = packed(recv, true);
  yield* pairwiseAlltoall(ch, sendBytes, sv?.layout ?? rv.layout, recvBytes, rv.layout);
  unpacked(recv, recvBytes, ch);
}

/**
 * Alltoall with a datatype per block and displacements in bytes (MPI_Alltoallw): each block is
 * packed by its own type into one contiguous send area, exchanged pairwise, and unpacked by the
 * receive type of its block. IN_PLACE: the blocks to send are those the receive side describes.
 */
export function* alltoallwSteps(
  ch: CollChannel,
  sendbuf: SendBuffer,
  sendCounts: readonly number[] | null,
  sdispls: readonly number[] | null,
  sendTypes: readonly Datatype[] | null,
  recvbuf: ArrayBufferView,
  recvCounts: readonly number[],
  rdispls: readonly number[],
  recvTypes: readonly Datatype[],
): Steps {
  const recv = typedBlocks(ch.size, recvbuf, recvCounts, rdispls, recvTypes, 'recv');
  const send = sendbuf === IN_PLACE ? recv : typedBlocks(ch.size, sendbuf, sendCounts, sdispls, sendTypes, 'send');
  const sendBytes = new Uint8Array(send.total);
  for (let r = 0; r < ch.size; r++) sendBytes.set(packed(send.spans[r], true), send.layout.offset(r));
  ch.clock.chargeCopy(send.total);
  const recvBytes = new Uint8Array(recv.total);
  yield* pairwiseAlltoall(ch, sendBytes, send.layout, recvBytes, recv.layout);
  for (let r = 0; r < ch.size; r++) unpacked(recv.spans[r], block(recvBytes, recv.layout, r), ch);
}

/** The spans of alltoallw's blocks on one side, and where their packed bytes go (one after another). */
function typedBlocks(ranks: number, buf: unknown, counts: readonly number[] | null, displs: readonly number[] | null, types: readonly Datatype[] | null, which: 'send' | 'recv') {
  const bufArgument = `${which}buf`;
  const c = countList(ranks, counts, `${which}Counts`);
  if (!Array.isArray(displs) || displs.length !== ranks) {
    throw new MpiError(ErrorClass.ERR_ARG, `${which === 'send' ? 'sdispls' : 'rdispls'} must be an array of ${ranks} byte displacements, got ${describeValue(displs)}`, { argument: which === 'send' ? 'sdispls' : 'rdispls' });
  }
  if (!Array.isArray(types) || types.length !== ranks) {
    throw new MpiError(ErrorClass.ERR_TYPE, `${which}Types must be an array of ${ranks} Datatypes, got ${describeValue(types)}`, { argument: `${which}Types` });
  }
  if (!ArrayBuffer.isView(buf)) spanOf(buf, {}, bufArgument); // the typed error for a non-buffer
  const view = buf as ArrayBufferView;
  const spans: BufferSpan[] = [];
  const offsets: number[] = [];
  let total = 0;
  for (let r = 0; r < ranks; r++) {
    const displsArgument = `${which === 'send' ? 'sdispls' : 'rdispls'}[${r}]`;
    const d = requireCount(displs[r], displsArgument);
    if (d > view.byteLength) throw new MpiError(ErrorClass.ERR_ARG, `${displsArgument} is ${d} bytes, past the end of ${bufArgument} (${view.byteLength} bytes)`, { argument: displsArgument });
    const type = types[r];
    if (!(type instanceof Datatype)) throw new MpiError(ErrorClass.ERR_TYPE, `${which}Types[${r}] must be a Datatype, got ${describeValue(type)}`, { argument: `${which}Types[${r}]` });
    const at = new Uint8Array(view.buffer, view.byteOffset + d, view.byteLength - d);
    const span = spanOf(at, { datatype: type, count: c[r] }, bufArgument);
    spans.push(span);
    offsets.push(total);
    total += span.size;
  }
  const layout: BlockLayout = { offset: (r) => offsets[r], length: (r) => spans[r].size };
  return { spans, layout, total };
}
