import { MemAccess, isDatError, DatStatus, type HwCollectives, type Lmr } from '@dapl/core';
import type { BufferSpan } from '../adi/transfer.js';
import { bufferSpan, type BufferOptions } from '../api/buffer-span.js';
import { requireCount } from '../api/check.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import type { MpiState } from '../api/mpi-state.js';
import { datatypeOf, packRange, unpackRange, type Datatype } from '../datatype/index.js';
import { recursiveDoublingAllreduce, ringAllreduce, ringReduceScatter } from './algorithms/allreduce.js';
import {
  binomialGather,
  block,
  binomialScatter,
  linearGather,
  linearScatter,
  pairwiseAlltoall,
  recursiveDoublingAllgather,
  recursiveDoublingScan,
  ringAllgather,
  uniformLayout,
  type BlockLayout,
} from './algorithms/blocks.js';
import { binomialBcast, binomialReduceToZero, disseminationBarrier, scatterAllgatherBcast, CollTag } from './algorithms/tree.js';
import type { CollChannel } from './channel.js';
import { IN_PLACE, type InPlace } from './in-place.js';
import { Op } from './op.js';

/** Switch points (bytes of the whole message), as MPICH's defaults. */
const BCAST_SHORT = 12_288;
const BCAST_MIN_RANKS_FOR_SCATTER = 8;
/**
 * Ring allreduce costs 2(p−1)·α + 2n·β against recursive doubling's log₂p·(α + n·β): it wins only
 * when n·β·(log₂p − 2) > (2p − 2 − log₂p)·α, i.e. from ≈ 10–20 α/β bytes on 8 or more ranks
 * (≈ 64 KiB for α ≈ 5 µs, β ≈ 1 ns/B) and never on 4 or fewer.
 */
const ALLREDUCE_RING_BYTES = 65_536;
const ALLREDUCE_RING_RANKS = 8;
const ALLGATHER_SHORT = 81_920;
const GATHER_BINOMIAL_LIMIT = 1 << 20;

export type SendBuffer = ArrayBufferView | InPlace;

/** The communicator facts collectives need. */
export interface CollMember {
  readonly state: MpiState;
  readonly channel: CollChannel;
  readonly name: string;
  /** World rank of each member. */
  readonly members: readonly number[];
}

/** Counts of which path barrier and bcast took (tests and tools read them through `mpi.counters()`). */
export interface CollCounters {
  hwBarriers: number;
  swBarriers: number;
  hwBcasts: number;
  swBcasts: number;
}

/**
 * The collectives of one communicator (MPI-3.1 ch. 5) on its collective channel. Each call checks
 * its arguments the same way on every rank before anything moves, picks an algorithm by message
 * and communicator size (documented with its cost in `algorithms/`), and works on packed bytes: a
 * contiguous buffer is used in place, another is packed and unpacked around the algorithm.
 */
export class Collectives {
  #hw: { ext: HwCollectives; usable: boolean } | null | undefined;

  constructor(private readonly m: CollMember) {}

  private get ch(): CollChannel {
    return this.m.channel;
  }

  // ---- barrier and bcast (hardware when usable) ---------------------------------------------

  async barrier(): Promise<void> {
    const hw = this.#hardware('barrier');
    const counters = this.m.state.collCounters;
    if (hw !== undefined) {
      counters.hwBarriers++;
      return this.#oneAtATime(() => hw.barrier(this.m.members));
    }
    counters.swBarriers++;
    return disseminationBarrier(this.ch);
  }

  async bcast(buf: ArrayBufferView, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const span = this.#span(buf, options, 'buf');
    const data = packed(span, this.ch.rank === r);
    const hw = this.#hardware('bcast');
    const counters = this.m.state.collCounters;
    let done = 0;
    if (hw !== undefined) {
      done = await this.#oneAtATime(() => this.#hwBcast(hw, data, r));
      if (done === data.length) counters.hwBcasts++;
    }
    if (done < data.length) {
      counters.swBcasts++;
      const rest = data.subarray(done);
      if (rest.length < BCAST_SHORT || this.ch.size < BCAST_MIN_RANKS_FOR_SCATTER) await binomialBcast(this.ch, rest, r);
      else await scatterAllgatherBcast(this.ch, rest, r);
    }
    unpacked(span, data, this.ch);
  }

  /**
   * Broadcast through the hardware (Tatebe et al. §3.3): the data goes in pieces through one registered
   * segment at offset 0 on every member. Returns the bytes done: if the serialized crossbar is busy
   * (every member gets the refusal), the rest falls back to software on every member alike.
   */
  async #hwBcast(hw: HwCollectives, data: Uint8Array, root: number): Promise<number> {
    const segment = this.#segment();
    const rootWorld = this.m.members[root];
    const me = this.ch.rank;
    let done = 0;
    while (done < data.length || data.length === 0) {
      const n = Math.min(segment.length, data.length - done);
      if (me === root) this.ch.copy(data.subarray(done, done + n), segment.bytes);
      try {
        await hw.broadcast(this.m.members, rootWorld, segment, 0, n);
      } catch (error) {
        if (isDatError(error, DatStatus.INVALID_STATE)) return done;
        throw new MpiError(ErrorClass.ERR_OTHER, `hardware broadcast failed: ${(error as Error).message}`, { cause: error });
      }
      if (me !== root) this.ch.copy(segment.bytes.subarray(0, n), data, done);
      done += n;
      if (data.length === 0) break;
    }
    return done;
  }

  /**
   * The hardware holds one barrier or broadcast per node at a time: this rank's hardware
   * collectives, on whatever communicator, go in call order, one after the other. Every rank calls
   * them in the same order (MPI's rule for collectives), so the ranks meet in the same rounds.
   */
  #oneAtATime<T>(run: () => Promise<T>): Promise<T> {
    const state = this.m.state;
    const result = state.hwTail.then(run);
    state.hwTail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  #segment(): Lmr {
    const state = this.m.state;
    state.hwSegment ??= state.job.connections.pz.registerLmr(new Uint8Array(state.parameters.hwSegment), MemAccess.LOCAL);
    return state.hwSegment;
  }

  /** The hw-collectives extension if this call should use it; undefined for software. */
  #hardware(what: string): HwCollectives | undefined {
    const mode = this.m.state.parameters.collectives;
    if (mode === 'software') return undefined;
    if (this.#hw === undefined) {
      const ext = this.m.state.job.ia.extension('hw-collectives');
      this.#hw = ext === undefined ? null : { ext, usable: ext.usable(this.m.members) };
    }
    const usable = this.#hw !== null && this.#hw.usable;
    if (mode === 'hardware' && !usable) {
      throw new MpiError(
        ErrorClass.ERR_OTHER,
        this.#hw === null
          ? `mpi.collectives is 'hardware' but provider ${this.m.state.job.ia.provider.name} has no hw-collectives (${what})`
          : `mpi.collectives is 'hardware' but the hardware cannot serve ${this.m.name} (world ranks ${this.m.members.join(',')}) (${what})`,
        { argument: 'mpi.collectives' },
      );
    }
    return usable ? this.#hw!.ext : undefined;
  }

  // ---- reductions ---------------------------------------------------------------------------

  async reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const isRoot = this.ch.rank === r;
    const { input, output, datatype, count } = this.#reduction(sendbuf, isRoot ? recvbuf : null, op, options, isRoot, 'reduce');
    const acc = packed(input, true).slice();
    await binomialReduceToZero(this.ch, acc, count, datatype, op);
    // The result is at rank 0 (rank order needs the tree rooted there); move it to the root.
    if (r !== 0) {
      if (this.ch.rank === 0) await this.ch.send(acc, r, CollTag.REDUCE);
      else if (isRoot) await this.ch.recv(acc, 0, CollTag.REDUCE);
    }
    if (isRoot) unpacked(output!, acc, this.ch);
  }

  async allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions = {}): Promise<void> {
    const { input, output, datatype, count } = this.#reduction(sendbuf, recvbuf, op, options, true, 'allreduce');
    const data = packed(input, true).slice();
    const ring = op.commute && data.length >= ALLREDUCE_RING_BYTES && this.ch.size >= ALLREDUCE_RING_RANKS && count >= this.ch.size;
    if (!ring) await recursiveDoublingAllreduce(this.ch, data, count, datatype, op);
    else await ringAllreduce(this.ch, data, count, datatype, op);
    unpacked(output!, data, this.ch);
  }

  async reduceScatterBlock(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions = {}): Promise<void> {
    const recvCount = options.count ?? undefined;
    const datatype = this.#datatype(recvbuf, options.datatype);
    const per = recvCount === undefined ? this.#span(recvbuf, { datatype }, 'recvbuf').count : requireCount(recvCount, 'count');
    return this.reduceScatter(sendbuf, recvbuf, Array(this.ch.size).fill(per), op, { datatype });
  }

  /** Reduce `sum(recvCounts)` elements and leave block r (recvCounts[r] elements) at rank r. */
  async reduceScatter(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], op: Op, options: BufferOptions = {}): Promise<void> {
    const datatype = this.#datatype(sendbuf === IN_PLACE ? recvbuf : sendbuf, options.datatype);
    checkOp(op, datatype);
    const { counts, at, extent: total, layout } = this.#vector(recvCounts, null, 'recvCounts', 'displs', datatype.size);
    const inPlace = sendbuf === IN_PLACE;
    const input = this.#span(inPlace ? recvbuf : sendbuf, { datatype, count: total }, inPlace ? 'recvbuf' : 'sendbuf');
    const output = this.#span(recvbuf, { datatype, count: counts[this.ch.rank] }, 'recvbuf');
    const data = packed(input, true).slice();
    const me = this.ch.rank;
    if (op.commute) {
      // A ring that ends with block r at rank r: rotate so that rank r finishes on its own block.
      await ringReduceScatter(this.ch, data, total, datatype, op, rotated({ start: (b) => at[b], length: (b) => counts[b] }, this.ch.size, -1));
      unpacked(output, block(data, layout, me), this.ch);
      return;
    }
    // Non-commutative: reduce in rank order to rank 0, then scatter the blocks.
    await binomialReduceToZero(this.ch, data, total, datatype, op);
    const mine = new Uint8Array(layout.length(me));
    await linearScatter(this.ch, data, mine, 0, layout);
    unpacked(output, mine, this.ch);
  }

  async scan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions = {}): Promise<void> {
    const { input, output, datatype, count } = this.#reduction(sendbuf, recvbuf, op, options, true, 'scan');
    const partial = packed(input, true).slice();
    const result = partial.slice();
    await recursiveDoublingScan(this.ch, partial, result, count, datatype, op, false);
    unpacked(output!, result, this.ch);
  }

  /** Exclusive scan: rank 0's `recvbuf` is left unchanged (MPI leaves it undefined). */
  async exscan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions = {}): Promise<void> {
    const { input, output, datatype, count } = this.#reduction(sendbuf, recvbuf, op, options, true, 'exscan');
    const partial = packed(input, true).slice();
    const result = new Uint8Array(partial.length);
    if (await recursiveDoublingScan(this.ch, partial, result, count, datatype, op, true)) unpacked(output!, result, this.ch);
  }

  // ---- gather, scatter, allgather, alltoall ------------------------------------------------

  async gather(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const isRoot = this.ch.rank === r;
    const inPlace = this.#inPlace(sendbuf, isRoot, 'gather at the root');
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    const count = options.count ?? (inPlace ? undefined : this.#span(sendbuf as ArrayBufferView, { datatype }, 'sendbuf').count);
    const per = count === undefined ? Math.floor(this.#span(recvbuf, { datatype }, 'recvbuf').count / this.ch.size) : requireCount(count, 'count');
    const blockBytes = per * datatype.size;
    const all = isRoot ? this.#span(recvbuf, { datatype, count: per * this.ch.size }, 'recvbuf') : undefined;
    const allBytes = all === undefined ? undefined : packed(all, inPlace);
    const mine = inPlace ? allBytes!.slice(r * blockBytes, (r + 1) * blockBytes) : packed(this.#span(sendbuf as ArrayBufferView, { datatype, count: per }, 'sendbuf'), true);
    if (blockBytes * this.ch.size <= GATHER_BINOMIAL_LIMIT) await binomialGather(this.ch, mine, allBytes, r, blockBytes);
    else await linearGather(this.ch, mine, allBytes, r, uniformLayout(blockBytes));
    if (all !== undefined) unpacked(all, allBytes!, this.ch);
  }

  async gatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, recvCounts: readonly number[] | null, displs: readonly number[] | null, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const isRoot = this.ch.rank === r;
    const inPlace = this.#inPlace(sendbuf, isRoot, 'gatherv at the root');
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    const e = datatype.size;
    let layout: BlockLayout | undefined;
    let all: BufferSpan | undefined;
    if (isRoot) {
      const v = this.#vector(recvCounts, displs, 'recvCounts', 'displs', e);
      all = this.#span(recvbuf, { datatype, count: v.extent }, 'recvbuf');
      layout = v.layout;
    }
    const allBytes = all === undefined ? undefined : packed(all, true);
    const mine = inPlace
      ? block(allBytes!, layout!, r).slice()
      : packed(this.#span(sendbuf as ArrayBufferView, { datatype, count: options.count }, 'sendbuf'), true);
    await linearGather(this.ch, mine, allBytes, r, layout);
    if (all !== undefined) unpacked(all, allBytes!, this.ch);
  }

  async scatter(sendbuf: ArrayBufferView | null, recvbuf: ArrayBufferView | InPlace, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const isRoot = this.ch.rank === r;
    const inPlace = this.#inPlace(recvbuf, isRoot, 'scatter at the root (as recvbuf)');
    const datatype = this.#datatype(inPlace ? sendbuf : recvbuf, options.datatype);
    const count = options.count ?? (inPlace ? undefined : this.#span(recvbuf as ArrayBufferView, { datatype }, 'recvbuf').count);
    const per = count === undefined ? Math.floor(this.#span(sendbuf, { datatype }, 'sendbuf').count / this.ch.size) : requireCount(count, 'count');
    const blockBytes = per * datatype.size;
    const all = isRoot ? packed(this.#span(sendbuf, { datatype, count: per * this.ch.size }, 'sendbuf'), true) : undefined;
    const out = inPlace ? undefined : this.#span(recvbuf as ArrayBufferView, { datatype, count: per }, 'recvbuf');
    const mine = new Uint8Array(blockBytes);
    if (blockBytes * this.ch.size <= GATHER_BINOMIAL_LIMIT) await binomialScatter(this.ch, all, mine, r, blockBytes);
    else await linearScatter(this.ch, all, mine, r, uniformLayout(blockBytes));
    if (out !== undefined) unpacked(out, mine, this.ch);
  }

  async scatterv(sendbuf: ArrayBufferView | null, sendCounts: readonly number[] | null, displs: readonly number[] | null, recvbuf: ArrayBufferView | InPlace, root: number, options: BufferOptions = {}): Promise<void> {
    const r = this.#root(root);
    const isRoot = this.ch.rank === r;
    const inPlace = this.#inPlace(recvbuf, isRoot, 'scatterv at the root (as recvbuf)');
    const datatype = this.#datatype(inPlace ? sendbuf : recvbuf, options.datatype);
    const e = datatype.size;
    let layout: BlockLayout | undefined;
    let all: Uint8Array | undefined;
    if (isRoot) {
      const v = this.#vector(sendCounts, displs, 'sendCounts', 'displs', e);
      all = packed(this.#span(sendbuf, { datatype, count: v.extent }, 'sendbuf'), true);
      layout = v.layout;
    }
    const out = inPlace ? undefined : this.#span(recvbuf as ArrayBufferView, { datatype, count: options.count }, 'recvbuf');
    const mine = new Uint8Array(isRoot ? layout!.length(r) : out!.size);
    const got = await linearScatter(this.ch, all, mine, r, layout);
    if (out === undefined) return;
    // Only the block that came: the rest of a larger receive buffer stays as it was.
    if (got > out.size) throw new MpiError(ErrorClass.ERR_TRUNCATE, `recvbuf holds ${out.size} bytes, the root's own block is ${got}`, { argument: 'recvbuf' });
    unpacked(out, mine.subarray(0, got), this.ch);
  }

  async allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: BufferOptions = {}): Promise<void> {
    const inPlace = sendbuf === IN_PLACE;
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    const count = options.count ?? (inPlace ? undefined : this.#span(sendbuf, { datatype }, 'sendbuf').count);
    const per = count === undefined ? Math.floor(this.#span(recvbuf, { datatype }, 'recvbuf').count / this.ch.size) : requireCount(count, 'count');
    const blockBytes = per * datatype.size;
    const all = this.#span(recvbuf, { datatype, count: per * this.ch.size }, 'recvbuf');
    const allBytes = packed(all, true);
    if (!inPlace) this.ch.copy(packed(this.#span(sendbuf, { datatype, count: per }, 'sendbuf'), true), allBytes, this.ch.rank * blockBytes);
    const size = this.ch.size;
    if ((size & (size - 1)) === 0 && allBytes.length < ALLGATHER_SHORT) await recursiveDoublingAllgather(this.ch, allBytes, blockBytes);
    else await ringAllgather(this.ch, allBytes, uniformLayout(blockBytes));
    unpacked(all, allBytes, this.ch);
  }

  async allgatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[], options: BufferOptions = {}): Promise<void> {
    const inPlace = sendbuf === IN_PLACE;
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    const e = datatype.size;
    const { counts, at, extent, layout } = this.#vector(recvCounts, displs, 'recvCounts', 'displs', e);
    const all = this.#span(recvbuf, { datatype, count: extent }, 'recvbuf');
    const allBytes = packed(all, true);
    const rank = this.ch.rank;
    if (!inPlace) {
      const mine = packed(this.#span(sendbuf, { datatype, count: counts[rank] }, 'sendbuf'), true);
      this.ch.copy(mine, allBytes, at[rank] * e);
    }
    await ringAllgather(this.ch, allBytes, layout);
    unpacked(all, allBytes, this.ch);
  }

  /** IN_PLACE (MPI-2.2): the data to send is in `recvbuf`, which a copy frees for the results. */
  async alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: BufferOptions = {}): Promise<void> {
    const inPlace = sendbuf === IN_PLACE;
    const from = inPlace ? recvbuf : sendbuf;
    const datatype = this.#datatype(from, options.datatype);
    const per = options.count === undefined ? Math.floor(this.#span(from, { datatype }, inPlace ? 'recvbuf' : 'sendbuf').count / this.ch.size) : requireCount(options.count, 'count');
    const send = inPlace ? undefined : this.#span(sendbuf, { datatype, count: per * this.ch.size }, 'sendbuf');
    const recv = this.#span(recvbuf, { datatype, count: per * this.ch.size }, 'recvbuf');
    const layout = uniformLayout(per * datatype.size);
    const sendBytes = send === undefined ? this.#snapshot(recv) : packed(send, true);
    const recvBytes = packed(recv, false);
    await pairwiseAlltoall(this.ch, sendBytes, layout, recvBytes, layout);
    unpacked(recv, recvBytes, this.ch);
  }

  /** IN_PLACE (MPI-2.2): the data to send is in `recvbuf`, laid out by the receive counts and displacements. */
  async alltoallv(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[] | null,
    options: BufferOptions = {},
  ): Promise<void> {
    const inPlace = sendbuf === IN_PLACE;
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    const s = inPlace ? undefined : this.#vector(sendCounts, sdispls, 'sendCounts', 'sdispls', datatype.size);
    const r = this.#vector(recvCounts, rdispls, 'recvCounts', 'rdispls', datatype.size);
    const send = s === undefined ? undefined : this.#span(sendbuf as ArrayBufferView, { datatype, count: s.extent }, 'sendbuf');
    const recv = this.#span(recvbuf, { datatype, count: r.extent }, 'recvbuf');
    const sendBytes = send === undefined ? this.#snapshot(recv) : packed(send, true);
    const recvBytes = packed(recv, true);
    await pairwiseAlltoall(this.ch, sendBytes, s?.layout ?? r.layout, recvBytes, r.layout);
    unpacked(recv, recvBytes, this.ch);
  }

  /** An IN_PLACE send: a copy of the receive buffer's packed data (already in the type's element order, read as bytes), charged to the clock. */
  #snapshot(recv: BufferSpan): Uint8Array {
    const copy = packed(recv, true).slice();
    this.ch.clock.chargeCopy(copy.length);
    return copy;
  }

  // ---- argument checks ----------------------------------------------------------------------

  #root(root: unknown): number {
    if (typeof root !== 'number' || !Number.isInteger(root) || root < 0 || root >= this.ch.size) {
      throw new MpiError(ErrorClass.ERR_ROOT, `root must be a rank of ${this.m.name} in [0, ${this.ch.size - 1}], got ${describeValue(root)}`, { argument: 'root' });
    }
    return root;
  }

  #span(buf: unknown, options: BufferOptions, argument: string): BufferSpan {
    if (buf === IN_PLACE) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is not allowed as ${argument} here`, { argument });
    return bufferSpan(buf, options, argument);
  }

  /** The datatype given, else the buffer's element type. */
  #datatype(buf: unknown, datatype: Datatype | undefined): Datatype {
    return datatype ?? datatypeOf(buf, 'buf');
  }

  /** IN_PLACE where only the root may use it; true when used. */
  #inPlace(buf: unknown, isRoot: boolean, where: string): boolean {
    if (buf !== IN_PLACE) return false;
    if (!isRoot) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is allowed only for ${where}`, { argument: 'sendbuf' });
    return true;
  }

  /** Inputs and output of a reduction, with the op checked against the datatype. */
  #reduction(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, options: BufferOptions, needOutput: boolean, what: string) {
    const inPlace = sendbuf === IN_PLACE;
    if (inPlace && !needOutput) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is allowed only at the root of ${what}`, { argument: 'sendbuf' });
    const datatype = this.#datatype(inPlace ? recvbuf : sendbuf, options.datatype);
    checkOp(op, datatype);
    const input = this.#span(inPlace ? recvbuf : sendbuf, { datatype, count: options.count }, inPlace ? 'recvbuf' : 'sendbuf');
    const count = input.count;
    let output: BufferSpan | undefined;
    if (needOutput) {
      output = inPlace ? input : this.#span(recvbuf, { datatype, count }, 'recvbuf');
      if (output.size < input.size) throw new MpiError(ErrorClass.ERR_BUFFER, `recvbuf holds ${output.size} bytes, the result needs ${input.size}`, { argument: 'recvbuf' });
    }
    return { input, output, datatype, count };
  }

  /** Per-rank counts and displacements (elements; default packed in rank order): the block layout in bytes and the elements it spans. */
  #vector(counts: readonly number[] | null, displs: readonly number[] | null, countsArgument: string, displsArgument: string, elementBytes: number): { counts: number[]; at: number[]; extent: number; layout: BlockLayout } {
    const c = this.#counts(counts, countsArgument);
    const at = this.#displs(displs, c, displsArgument);
    const extent = Math.max(0, ...c.map((n, i) => (n === 0 ? 0 : at[i] + n)));
    // An empty block may name any displacement, even past the others' data: it is placed at 0.
    return { counts: c, at, extent, layout: { offset: (i) => (c[i] === 0 ? 0 : at[i] * elementBytes), length: (i) => c[i] * elementBytes } };
  }

  #counts(counts: readonly number[] | null, argument: string): number[] {
    if (!Array.isArray(counts) || counts.length !== this.ch.size) {
      throw new MpiError(ErrorClass.ERR_COUNT, `${argument} must be an array of ${this.ch.size} counts (one per rank), got ${describeValue(counts)}`, { argument });
    }
    return counts.map((c, i) => requireCount(c, `${argument}[${i}]`));
  }

  #displs(displs: readonly number[] | null, counts: readonly number[], argument: string): number[] {
    if (displs === null || displs === undefined) {
      const at: number[] = [];
      let next = 0;
      for (const c of counts) {
        at.push(next);
        next += c;
      }
      return at;
    }
    if (!Array.isArray(displs) || displs.length !== counts.length) {
      throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ${counts.length} displacements, got ${describeValue(displs)}`, { argument });
    }
    return displs.map((d, i) => requireCount(d, `${argument}[${i}]`));
  }
}

function checkOp(op: unknown, datatype: Datatype): void {
  if (!(op instanceof Op)) throw new MpiError(ErrorClass.ERR_OP, `op must be an Op (Op.SUM … or Op.create), got ${describeValue(op)}`, { argument: 'op' });
  op.check(datatype);
}

/** The span's data as contiguous packed bytes: its own memory when contiguous, else a packed copy (`fill` copies the data in). */
function packed(span: BufferSpan, fill: boolean): Uint8Array {
  if (span.program.contiguous) {
    const start = span.bytes.byteOffset + span.offset + span.program.minOffset;
    return new Uint8Array(span.bytes.buffer, start, span.size);
  }
  const out = new Uint8Array(span.size);
  if (fill && span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, out, 0, span.size);
  return out;
}

/** Put packed bytes back into the span (nothing to do when `data` is the span's own memory). */
function unpacked(span: BufferSpan, data: Uint8Array, ch: CollChannel): void {
  const n = Math.min(data.length, span.size);
  if (span.program.contiguous) {
    const start = span.bytes.byteOffset + span.offset + span.program.minOffset;
    if (data.buffer === span.bytes.buffer && data.byteOffset === start) return;
    new Uint8Array(span.bytes.buffer, start, n).set(data.subarray(0, n));
    ch.clock.chargeCopy(n);
    return;
  }
  if (n > 0) unpackRange(span.program, span.count, span.bytes, span.offset, 0, data, 0, n);
  ch.clock.chargeCopy(n);
}

/** The same blocks renumbered so that the ring's final block for rank r is block r (see ringReduceScatter). */
function rotated(b: { start(i: number): number; length(i: number): number }, size: number, by: number) {
  const map = (i: number) => (((i + by) % size) + size) % size;
  return { start: (i: number) => b.start(map(i)), length: (i: number) => b.length(map(i)) };
}
