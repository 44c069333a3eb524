import type { RequestCore } from '../adi/request-core.js';
import type { BufferSpan } from '../adi/transfer.js';
import { bufferSpan, type BufferOptions } from '../api/buffer-span.js';
import { BUFFER_OPTION_KEYS, COLLECTIVE_OPTION_KEYS, requireCount, requireOptions } from '../api/check.js';
import { PROC_NULL } from '../api/constants.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import type { CollChannel } from '../coll/channel.js';
import { settled as waitAll } from '../coll/schedule.js';
import { packRange, unpackRange } from '../datatype/index.js';

/** Options of the neighbour collectives: one datatype and count for both sides, or each side its own. */
export interface NeighborOptions extends BufferOptions {
  readonly send?: BufferOptions;
  readonly recv?: BufferOptions;
}

/**
 * Who a process exchanges with in a neighbour collective (MPI-3.1 §7.6), in buffer order, and the
 * tags that pair a send with its receive: a Cartesian topology can name one peer in two slots (a
 * periodic dimension of 1 or 2), so its slots carry their direction; a graph's pairs go in order.
 */
export interface Neighborhood {
  /** In-neighbours (receive blocks), PROC_NULL for an open edge. */
  readonly sources: readonly number[];
  /** Out-neighbours (send blocks). */
  readonly destinations: readonly number[];
  sendTag(slot: number): number;
  recvTag(slot: number): number;
}

/** Tags of neighbour traffic on the collective context, above those of the other collectives. */
// Above the nonblocking collectives' tags (64 + sequence mod 2^24, coll/collectives.ts) and the blocking algorithms' own.
export const NEIGHBOR_TAG = 1 << 25;

/** A buffer as blocks: block k is `counts[k]` elements of the span's type from element `displs[k]`. */
interface Blocks {
  readonly span: BufferSpan;
  readonly counts: readonly number[];
  readonly displs: readonly number[];
}

/** Every out-neighbour gets all of `sendbuf`; the block from in-neighbour k lands at block k of `recvbuf` (MPI_Neighbor_allgather). */
export function allgather(ch: CollChannel, hood: Neighborhood, sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, options: NeighborOptions | undefined): Promise<void> {
  const { send, recv } = sides(options, 'neighborAllgather');
  const out = wholeSpan(sendbuf, send, 'sendbuf');
  const count = out.count;
  const into = typedSpan(recvbuf, recv, 'recvbuf');
  const recvCount = recv.count === undefined ? convertedCount(out.size, into, 'recvbuf') : requireCount(recv.count, 'options.recv.count');
  const n = hood.sources.length;
  return exchange(ch, hood, { span: out, counts: hood.destinations.map(() => count), displs: hood.destinations.map(() => 0) }, uniform(into, n, recvCount, 'recvbuf'));
}

/** As allgather with per-neighbour receive counts and displacements, in elements (MPI_Neighbor_allgatherv). */
export function allgatherv(ch: CollChannel, hood: Neighborhood, sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options: NeighborOptions | undefined): Promise<void> {
  const { send, recv } = sides(options, 'neighborAllgatherv');
  const out = wholeSpan(sendbuf, send, 'sendbuf');
  const into = typedSpan(recvbuf, recv, 'recvbuf');
  const n = hood.sources.length;
  return exchange(ch, hood, { span: out, counts: hood.destinations.map(() => out.count), displs: hood.destinations.map(() => 0) }, varying(into, n, recvCounts, displs, 'recvCounts', 'displs', 'recvbuf'));
}

/** Block k of `sendbuf` to out-neighbour k, block k of `recvbuf` from in-neighbour k (MPI_Neighbor_alltoall). */
export function alltoall(ch: CollChannel, hood: Neighborhood, sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, options: NeighborOptions | undefined): Promise<void> {
  const { send, recv } = sides(options, 'neighborAlltoall');
  const out = typedSpan(sendbuf, send, 'sendbuf');
  const into = typedSpan(recvbuf, recv, 'recvbuf');
  const outdegree = hood.destinations.length;
  const indegree = hood.sources.length;
  const sendCount = send.count === undefined ? (outdegree === 0 ? 0 : Math.floor(out.count / outdegree)) : requireCount(send.count, 'options.send.count');
  let recvCount: number;
  if (recv.count !== undefined) recvCount = requireCount(recv.count, 'options.recv.count');
  else if (outdegree > 0) recvCount = convertedCount(sendCount * out.program.size, into, 'recvbuf');
  else recvCount = indegree === 0 ? 0 : Math.floor(into.count / indegree);
  return exchange(ch, hood, uniform(out, outdegree, sendCount, 'sendbuf'), uniform(into, indegree, recvCount, 'recvbuf'));
}

/** As alltoall with per-neighbour counts and displacements on both sides (MPI_Neighbor_alltoallv). */
export function alltoallv(
  ch: CollChannel,
  hood: Neighborhood,
  sendbuf: ArrayBufferView,
  sendCounts: readonly number[],
  sdispls: readonly number[] | null,
  recvbuf: ArrayBufferView,
  recvCounts: readonly number[],
  rdispls: readonly number[] | null,
  options: NeighborOptions | undefined,
): Promise<void> {
  const { send, recv } = sides(options, 'neighborAlltoallv');
  const out = typedSpan(sendbuf, send, 'sendbuf');
  const into = typedSpan(recvbuf, recv, 'recvbuf');
  const sending = varying(out, hood.destinations.length, sendCounts, sdispls, 'sendCounts', 'sdispls', 'sendbuf');
  return exchange(ch, hood, sending, varying(into, hood.sources.length, recvCounts, rdispls, 'recvCounts', 'rdispls', 'recvbuf'));
}

/**
 * Post every receive, then every send, and wait for all; a block of a non-contiguous type goes
 * through a packed copy (charged to the clock). Blocks for PROC_NULL neighbours are left as they were.
 */
async function exchange(ch: CollChannel, hood: Neighborhood, send: Blocks, recv: Blocks): Promise<void> {
  const requests: RequestCore[] = [];
  const unpacks: (() => void)[] = [];
  hood.sources.forEach((source, k) => {
    if (source === PROC_NULL) return;
    const { span } = recv;
    const bytes = recv.counts[k] * span.program.size;
    const origin = span.offset + recv.displs[k] * span.program.extent;
    if (span.program.contiguous) {
      const at = origin + span.program.minOffset;
      requests.push(ch.irecv(span.bytes.subarray(at, at + bytes), source, hood.recvTag(k)));
      return;
    }
    const packed = new Uint8Array(bytes);
    requests.push(ch.irecv(packed, source, hood.recvTag(k)));
    unpacks.push(() => {
      unpackRange(span.program, recv.counts[k], span.bytes, origin, 0, packed, 0, bytes);
      ch.clock.chargeCopy(bytes);
    });
  });
  hood.destinations.forEach((dest, k) => {
    if (dest === PROC_NULL) return;
    const { span } = send;
    const bytes = send.counts[k] * span.program.size;
    const origin = span.offset + send.displs[k] * span.program.extent;
    let data: Uint8Array;
    if (span.program.contiguous) {
      const at = origin + span.program.minOffset;
      data = span.bytes.subarray(at, at + bytes);
    } else {
      data = new Uint8Array(bytes);
      packRange(span.program, send.counts[k], span.bytes, origin, 0, data, 0, bytes);
      ch.clock.chargeCopy(bytes);
    }
    requests.push(ch.isend(data, dest, hood.sendTag(k)));
  });
  await waitAll(requests);
  for (const unpack of unpacks) unpack();
}

function sides(options: NeighborOptions | undefined, call: string): { send: BufferOptions; recv: BufferOptions } {
  const o = requireOptions<NeighborOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, call);
  const send = requireOptions<BufferOptions>(o.send, 'options.send', BUFFER_OPTION_KEYS, call);
  const recv = requireOptions<BufferOptions>(o.recv, 'options.recv', BUFFER_OPTION_KEYS, call);
  const shared = { datatype: o.datatype, count: o.count };
  return { send: { ...shared, ...stripUndefined(send) }, recv: { ...shared, ...stripUndefined(recv) } };
}

function stripUndefined(o: BufferOptions): BufferOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as BufferOptions;
}

/** The whole send buffer as `count` elements (default: as many as it holds). */
function wholeSpan(buf: ArrayBufferView, options: BufferOptions, argument: string): BufferSpan {
  return bufferSpan(buf, options, argument);
}

/** A buffer of blocks: its type, and as many elements as it holds (the count option sizes the blocks, not the buffer). */
function typedSpan(buf: ArrayBufferView, options: BufferOptions, argument: string): BufferSpan {
  return bufferSpan(buf, { datatype: options.datatype }, argument);
}

/** Elements of the receive type that `bytes` bytes make; ERR_COUNT when not a whole number. */
function convertedCount(bytes: number, into: BufferSpan, argument: string): number {
  const size = into.program.size;
  if (size === 0) return 0;
  if (bytes % size !== 0) throw new MpiError(ErrorClass.ERR_COUNT, `${argument}: a block of ${bytes} bytes is not a whole number of ${size}-byte elements; give options.recv.count`, { argument });
  return bytes / size;
}

/** `n` blocks of `count` elements, one after another. */
function uniform(span: BufferSpan, n: number, count: number, argument: string): Blocks {
  const counts = new Array<number>(n).fill(count);
  const displs = counts.map((_, k) => k * count);
  requireRoom(span, n === 0 ? 0 : n * count, argument);
  return { span, counts, displs };
}

/** Blocks of `counts[k]` elements at `displs[k]` (packed one after another when displs is null). */
function varying(span: BufferSpan, n: number, counts: unknown, displs: unknown, countsName: string, displsName: string, argument: string): Blocks {
  const c = requireList(counts, n, countsName, requireCount);
  let d: number[];
  if (displs === null || displs === undefined) {
    d = [];
    let at = 0;
    for (const x of c) {
      d.push(at);
      at += x;
    }
  } else d = requireList(displs, n, displsName, requireCount);
  let end = 0;
  for (let k = 0; k < n; k++) if (c[k] > 0) end = Math.max(end, d[k] + c[k]);
  requireRoom(span, end, argument);
  return { span, counts: c, displs: d };
}

function requireList(list: unknown, n: number, argument: string, each: (v: unknown, argument: string) => number): number[] {
  if (!Array.isArray(list) || list.length !== n) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ${n} entries (one per neighbour), got ${describeValue(list)}`, { argument });
  return list.map((v, k) => each(v, `${argument}[${k}]`));
}

/** ERR_BUFFER unless `elements` elements of the span's type fit its buffer. */
function requireRoom(span: BufferSpan, elements: number, argument: string): void {
  if (elements > span.count) throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} holds ${span.count} elements of its type; the blocks need ${elements}`, { argument });
}
