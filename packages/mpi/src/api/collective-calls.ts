import { disseminationBarrier } from '../coll/algorithms/tree.js';
import type { CollectiveOptions } from '../coll/arguments.js';
import type { CollChannel } from '../coll/channel.js';
import type { SendBuffer } from '../coll/collectives.js';
import { allgatherSteps, allgathervSteps, alltoallSteps, alltoallvSteps, alltoallwSteps } from '../coll/exchanges.js';
import type { InPlace } from '../coll/in-place.js';
import type { Op } from '../coll/op.js';
import { allreduceSteps, exscanSteps, reduceScatterBlockSteps, reduceScatterSteps, scanSteps } from '../coll/reductions.js';
import { bcastSteps, gatherSteps, gathervSteps, reduceSteps, scatterSteps, scattervSteps } from '../coll/rooted.js';
import type { Steps } from '../coll/schedule.js';
import type { Datatype } from '../datatype/index.js';
import type { BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, COLLECTIVE_OPTION_KEYS, requireOptions } from './check.js';
import type { Request } from './request.js';

/**
 * The collectives a communicator runs from their schedules alone: MPI-3's nonblocking
 * collectives (MPI-3.1 §5.12) and alltoallw. Each nonblocking call takes its blocking
 * counterpart's arguments, checks them at once (a bad one throws here, on every rank alike), posts
 * the schedule's first round and returns a `Request`. The schedule then progresses from the
 * transport's completions while the program goes on — in `await`-yielding steps, since the
 * completions are delivered on the event loop — and several may be outstanding on one
 * communicator: they match in the order each member started them. The buffers belong to the
 * operation until the request completes.
 */
export abstract class CollectiveCalls {
  /** @internal */
  protected abstract startCollective(what: string, steps: (ch: CollChannel) => Steps): Request;
  /** @internal */
  protected abstract runCollective(what: string, steps: (ch: CollChannel) => Steps): Promise<void>;

  /** `op` over every member's `sendbuf` into `recvbuf` at `root` (MPI_Reduce); IN_PLACE at the root. */
  reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options?: BufferOptions): Promise<void> {
    return this.runCollective(`reduce to ${root}`, (ch) => reduceSteps(ch, sendbuf, recvbuf, op, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduce')));
  }

  /** `op` over every member's `sendbuf` into every `recvbuf` (MPI_Allreduce); IN_PLACE allowed. */
  allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.runCollective('allreduce', (ch) => allreduceSteps(ch, sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'allreduce')));
  }

  /** Each member's `count` elements into `recvbuf` at `root`, in rank order (MPI_Gather); IN_PLACE at the root. */
  gather(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, root: number, options?: CollectiveOptions): Promise<void> {
    return this.runCollective(`gather to ${root}`, (ch) => gatherSteps(ch, sendbuf, recvbuf, root, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'gather')));
  }

  /** As gather with per-rank counts and displacements (in elements) at the root (MPI_Gatherv). */
  gatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, recvCounts: readonly number[] | null, displs: readonly number[] | null, root: number, options?: CollectiveOptions): Promise<void> {
    return this.runCollective(`gatherv to ${root}`, (ch) => gathervSteps(ch, sendbuf, recvbuf, recvCounts, displs, root, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'gatherv')));
  }

  /** Block r of `root`'s `sendbuf` to rank r (MPI_Scatter); IN_PLACE as the root's recvbuf. */
  scatter(sendbuf: ArrayBufferView | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: CollectiveOptions): Promise<void> {
    return this.runCollective(`scatter from ${root}`, (ch) => scatterSteps(ch, sendbuf, recvbuf, root, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'scatter')));
  }

  /** As scatter with per-rank counts and displacements at the root (MPI_Scatterv). */
  scatterv(sendbuf: ArrayBufferView | null, sendCounts: readonly number[] | null, displs: readonly number[] | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: CollectiveOptions): Promise<void> {
    return this.runCollective(`scatterv from ${root}`, (ch) => scattervSteps(ch, sendbuf, sendCounts, displs, recvbuf, root, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'scatterv')));
  }

  /** Every member's block to every member, in rank order (MPI_Allgather); IN_PLACE allowed. */
  allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Promise<void> {
    return this.runCollective('allgather', (ch) => allgatherSteps(ch, sendbuf, recvbuf, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'allgather')));
  }

  /** As allgather with per-rank counts and displacements (MPI_Allgatherv). */
  allgatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options?: CollectiveOptions): Promise<void> {
    return this.runCollective('allgatherv', (ch) => allgathervSteps(ch, sendbuf, recvbuf, recvCounts, displs ?? null, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'allgatherv')));
  }

  /** Block r of every member's `sendbuf` to rank r (MPI_Alltoall); IN_PLACE allowed. */
  alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Promise<void> {
    return this.runCollective('alltoall', (ch) => alltoallSteps(ch, sendbuf, recvbuf, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'alltoall')));
  }

  /** As alltoall with per-rank counts and displacements on both sides (MPI_Alltoallv); IN_PLACE allowed (send counts then ignored). */
  alltoallv(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[] | null,
    options?: CollectiveOptions,
  ): Promise<void> {
    return this.runCollective('alltoallv', (ch) => alltoallvSteps(ch, sendbuf, sendCounts, sdispls, recvbuf, recvCounts, rdispls, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'alltoallv')));
  }

  /** `op` over every member's `sendbuf`, block r (the size of `recvbuf`) left at rank r (MPI_Reduce_scatter_block). */
  reduceScatterBlock(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.runCollective('reduceScatterBlock', (ch) => reduceScatterBlockSteps(ch, sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduceScatterBlock')));
  }

  /** `op` over every member's `sendbuf`, `recvCounts[r]` elements left at rank r (MPI_Reduce_scatter). */
  reduceScatter(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], op: Op, options?: BufferOptions): Promise<void> {
    return this.runCollective('reduceScatter', (ch) => reduceScatterSteps(ch, sendbuf, recvbuf, recvCounts, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduceScatter')));
  }

  /** Rank r gets `op` over ranks 0..r (MPI_Scan); IN_PLACE allowed. */
  scan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.runCollective('scan', (ch) => scanSteps(ch, sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'scan')));
  }

  /** Rank r gets `op` over ranks 0..r−1; rank 0's recvbuf is left as it was (MPI_Exscan). */
  exscan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.runCollective('exscan', (ch) => exscanSteps(ch, sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'exscan')));
  }

  /** As alltoallv with a datatype per block and displacements in bytes (MPI_Alltoallw); IN_PLACE allowed (the send side then ignored). */
  alltoallw(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    sendTypes: readonly Datatype[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[],
    recvTypes: readonly Datatype[],
  ): Promise<void> {
    return this.runCollective('alltoallw', (ch) => alltoallwSteps(ch, sendbuf, sendCounts, sdispls, sendTypes, recvbuf, recvCounts, rdispls, recvTypes));
  }

  /** MPI_Ibarrier: completes once every member has started it (dissemination rounds). */
  ibarrier(): Request {
    return this.startCollective('ibarrier', disseminationBarrier);
  }

  /** MPI_Ibcast (binomial tree, or scatter + allgather for long messages on 8 or more ranks). */
  ibcast(buf: ArrayBufferView, root: number, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ibcast');
    return this.startCollective(`ibcast from ${root}`, (ch) => bcastSteps(ch, buf, root, o));
  }

  /** MPI_Ireduce; IN_PLACE at the root. */
  ireduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ireduce');
    return this.startCollective(`ireduce to ${root}`, (ch) => reduceSteps(ch, sendbuf, recvbuf, op, root, o));
  }

  /** MPI_Iallreduce; IN_PLACE allowed. */
  iallreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'iallreduce');
    return this.startCollective('iallreduce', (ch) => allreduceSteps(ch, sendbuf, recvbuf, op, o));
  }

  /** MPI_Igather; IN_PLACE at the root. */
  igather(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, root: number, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'igather');
    return this.startCollective(`igather to ${root}`, (ch) => gatherSteps(ch, sendbuf, recvbuf, root, o));
  }

  /** MPI_Igatherv. */
  igatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, recvCounts: readonly number[] | null, displs: readonly number[] | null, root: number, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'igatherv');
    return this.startCollective(`igatherv to ${root}`, (ch) => gathervSteps(ch, sendbuf, recvbuf, recvCounts, displs, root, o));
  }

  /** MPI_Iscatter; IN_PLACE as the root's recvbuf. */
  iscatter(sendbuf: ArrayBufferView | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'iscatter');
    return this.startCollective(`iscatter from ${root}`, (ch) => scatterSteps(ch, sendbuf, recvbuf, root, o));
  }

  /** MPI_Iscatterv. */
  iscatterv(sendbuf: ArrayBufferView | null, sendCounts: readonly number[] | null, displs: readonly number[] | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'iscatterv');
    return this.startCollective(`iscatterv from ${root}`, (ch) => scattervSteps(ch, sendbuf, sendCounts, displs, recvbuf, root, o));
  }

  /** MPI_Iallgather; IN_PLACE allowed. */
  iallgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'iallgather');
    return this.startCollective('iallgather', (ch) => allgatherSteps(ch, sendbuf, recvbuf, o));
  }

  /** MPI_Iallgatherv. */
  iallgatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'iallgatherv');
    return this.startCollective('iallgatherv', (ch) => allgathervSteps(ch, sendbuf, recvbuf, recvCounts, displs, o));
  }

  /** MPI_Ialltoall; IN_PLACE allowed. */
  ialltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'ialltoall');
    return this.startCollective('ialltoall', (ch) => alltoallSteps(ch, sendbuf, recvbuf, o));
  }

  /** MPI_Ialltoallv. */
  ialltoallv(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[] | null,
    options?: CollectiveOptions,
  ): Request {
    const o = requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'ialltoallv');
    return this.startCollective('ialltoallv', (ch) => alltoallvSteps(ch, sendbuf, sendCounts, sdispls, recvbuf, recvCounts, rdispls, o));
  }

  /** MPI_Ialltoallw. */
  ialltoallw(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    sendTypes: readonly Datatype[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[],
    recvTypes: readonly Datatype[],
  ): Request {
    return this.startCollective('ialltoallw', (ch) => alltoallwSteps(ch, sendbuf, sendCounts, sdispls, sendTypes, recvbuf, recvCounts, rdispls, recvTypes));
  }

  /** MPI_Ireduce_scatter_block. */
  ireduceScatterBlock(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ireduceScatterBlock');
    return this.startCollective('ireduceScatterBlock', (ch) => reduceScatterBlockSteps(ch, sendbuf, recvbuf, op, o));
  }

  /** MPI_Ireduce_scatter. */
  ireduceScatter(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], op: Op, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ireduceScatter');
    return this.startCollective('ireduceScatter', (ch) => reduceScatterSteps(ch, sendbuf, recvbuf, recvCounts, op, o));
  }

  /** MPI_Iscan; IN_PLACE allowed. */
  iscan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'iscan');
    return this.startCollective('iscan', (ch) => scanSteps(ch, sendbuf, recvbuf, op, o));
  }

  /** MPI_Iexscan; rank 0's recvbuf is left as it was. */
  iexscan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Request {
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'iexscan');
    return this.startCollective('iexscan', (ch) => exscanSteps(ch, sendbuf, recvbuf, op, o));
  }
}
