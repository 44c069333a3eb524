import { RecvRequest as RecvRequestCore, SendMode, type RecvRequest } from '../adi/requests.js';
import { byteSpan, type BufferSpan } from '../adi/transfer.js';
import { packRange } from '../datatype/index.js';
import { bufferSpan, type BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, requireDest, requireOptions, requireRecvTag, requireSource, requireTag } from './check.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { Group, requireGroup } from './group.js';
import type { MpiState } from './mpi-state.js';
import { Request } from './request.js';
import { Status } from './status.js';
import { RequestCore } from '../adi/request-core.js';
import { CollChannel } from '../coll/channel.js';
import { Collectives, type SendBuffer } from '../coll/collectives.js';
import type { InPlace } from '../coll/in-place.js';
import type { Op } from '../coll/op.js';

/** MPI's C int, which colours and keys are on the wire. */
const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

export interface SendOptions extends BufferOptions {
  /** Default 'standard'. */
  readonly mode?: 'standard' | 'synchronous' | 'ready' | 'buffered';
}

export type RecvOptions = BufferOptions;

export interface SendrecvOptions {
  readonly send?: BufferOptions;
  readonly recv?: BufferOptions;
}

const SEND_OPTION_KEYS: readonly string[] = [...BUFFER_OPTION_KEYS, 'mode'];
const SENDRECV_OPTION_KEYS: readonly string[] = ['send', 'recv'];

const MODES: Readonly<Record<string, SendMode>> = {
  standard: SendMode.STANDARD,
  synchronous: SendMode.SYNCHRONOUS,
  ready: SendMode.READY,
  buffered: SendMode.BUFFERED,
};

/**
 * A communicator (MPI_Comm): a group and a context, so that its traffic never matches another
 * communicator's. Blocking calls return promises; non-blocking ones return a `Request` at once.
 * Ranks, tags and counts are checked before anything moves; errors are `MpiError`s.
 */
export class Comm {
  readonly #state: MpiState;
  readonly #group: Group;
  readonly #context: number;
  readonly #name: string;
  #freed = false;
  #coll: Collectives | undefined;

  /** @internal Communicators come from `mpi.world`, `mpi.self`, `dup`, `split` and `create`. */
  constructor(state: MpiState, group: Group, context: number, name: string) {
    this.#state = state;
    this.#group = group;
    this.#context = context;
    this.#name = name;
  }

  get rank(): number {
    return this.#group.rank;
  }

  get size(): number {
    return this.#group.size;
  }

  get group(): Group {
    return this.#group;
  }

  get name(): string {
    return this.#name;
  }

  get freed(): boolean {
    return this.#freed;
  }

  /** @internal The point-to-point context id (the collective one is +1). */
  get context(): number {
    return this.#context;
  }

  // ---- sends --------------------------------------------------------------------------------

  async send(buf: ArrayBufferView, dest: number, tag = 0, options?: SendOptions): Promise<void> {
    await this.#send(buf, dest, tag, options, true).wait();
  }

  async ssend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ssend'), mode: 'synchronous' }).wait();
  }

  async rsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.#send(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'rsend'), mode: 'ready' }, true).wait();
  }

  async bsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'bsend'), mode: 'buffered' }).wait();
  }

  issend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Request {
    return this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'issend'), mode: 'synchronous' });
  }

  irsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Request {
    return this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'irsend'), mode: 'ready' });
  }

  ibsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Request {
    return this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ibsend'), mode: 'buffered' });
  }

  /** Start a send in any mode (`options.mode`, default standard). */
  isend(buf: ArrayBufferView, dest: number, tag = 0, options?: SendOptions): Request {
    return this.#send(buf, dest, tag, options, false);
  }

  /** `blocking`: the caller waits for this send alone (send, rsend), so the device may buffer it. */
  #send(buf: ArrayBufferView, dest: number, tag: number, options: SendOptions | undefined, blocking: boolean): Request {
    this.#check();
    const o = requireOptions<SendOptions>(options, 'options', SEND_OPTION_KEYS, blocking ? 'send' : 'isend');
    const mode = MODES[o.mode ?? 'standard'];
    if (mode === undefined) {
      throw new MpiError(ErrorClass.ERR_ARG, `options.mode must be 'standard', 'synchronous', 'ready' or 'buffered', got ${describeValue(o.mode)}`, { argument: 'options.mode' });
    }
    const to = requireDest(dest, this.size, 'dest');
    const t = requireTag(tag, 'tag');
    const span = bufferSpan(buf, o, 'buf');
    if (to === PROC_NULL) return completed(Status.EMPTY);
    return this.#startSend(span, to, t, mode, this.#context, blocking);
  }

  #startSend(span: BufferSpan, dest: number, tag: number, mode: SendMode, context: number, blocking = false): Request {
    const peer = this.#group.worldRanks[dest];
    if (mode !== SendMode.BUFFERED) return new Request(this.#state.p2p.isend(peer, context, this.rank, tag, span, mode, blocking), undefined, this.#state.job.runtime);
    // Buffered: pack into the attached buffer, send the copy in standard mode, free the copy when sent.
    const attached = this.#state.attached;
    if (attached === undefined) {
      throw new MpiError(ErrorClass.ERR_BUFFER, 'a buffered send needs a buffer attached with mpi.bufferAttach() first', { argument: 'buf' });
    }
    const { region, release } = attached.take(span.size);
    if (span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, region, 0, span.size);
    this.#state.job.runtime.clock.chargeCopy(span.size);
    const request = this.#state.p2p.isend(peer, context, this.rank, tag, byteSpan(region), SendMode.STANDARD);
    // A failure from now on is one the caller cannot see (it was told the send was done): detach reports it.
    const failedAtOnce = request.error !== undefined;
    request.onDone(() => release(failedAtOnce ? undefined : request.error));
    // The caller's buffer is free as soon as it is copied: report the send complete now, as MPI does.
    return failedAtOnce ? new Request(request, undefined, this.#state.job.runtime) : completed(Status.EMPTY);
  }

  // ---- receives -----------------------------------------------------------------------------

  async recv(buf: ArrayBufferView, source = ANY_SOURCE, tag = ANY_TAG, options?: RecvOptions): Promise<Status> {
    return this.irecv(buf, source, tag, options).wait();
  }

  irecv(buf: ArrayBufferView, source = ANY_SOURCE, tag = ANY_TAG, options?: RecvOptions): Request {
    this.#check();
    const o = requireOptions<RecvOptions>(options, 'options', BUFFER_OPTION_KEYS, 'irecv');
    const from = requireSource(source, this.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    const span = bufferSpan(buf, o, 'buf');
    if (from === PROC_NULL) {
      const done = new RecvRequestCore(this.#context, PROC_NULL, ANY_TAG, span);
      done.complete(new Status(PROC_NULL, ANY_TAG, 0));
      return new Request(done, this.#cancel);
    }
    return this.#startRecv(span, from, t, this.#context);
  }

  /** The world rank of communicator rank `source`; undefined for ANY_SOURCE. */
  #peerOf(source: number): number | undefined {
    return source === ANY_SOURCE ? undefined : this.#group.worldRanks[source];
  }

  #startRecv(span: BufferSpan, source: number, tag: number, context: number): Request {
    const request = this.#state.p2p.irecv(context, source, tag, span, this.#peerOf(source));
    return new Request(request, this.#cancel, this.#state.job.runtime);
  }

  readonly #cancel = (request: RecvRequest): boolean => this.#state.p2p.cancel(request);

  /** Send and receive at once (MPI_Sendrecv): neither waits for the other, so exchanges cannot deadlock. */
  async sendrecv(
    sendbuf: ArrayBufferView,
    dest: number,
    sendtag: number,
    recvbuf: ArrayBufferView,
    source = ANY_SOURCE,
    recvtag = ANY_TAG,
    options?: SendrecvOptions,
  ): Promise<Status> {
    const o = requireOptions<SendrecvOptions>(options, 'options', SENDRECV_OPTION_KEYS, 'sendrecv');
    const receive = this.irecv(recvbuf, source, recvtag, o.recv);
    // A send that fails (bad arguments now, or later) takes its receive back: no receive of a
    // failed call may stay posted and take a later message into a buffer nobody waits on.
    try {
      const send = this.isend(sendbuf, dest, sendtag, o.send);
      const [status] = await Promise.all([receive.wait(), send.wait()]);
      return status;
    } catch (error) {
      if (!receive.done) receive.cancel();
      throw error;
    }
  }

  /** Send `buf` and receive into it (MPI_Sendrecv_replace): the outgoing data is packed first. */
  async sendrecvReplace(buf: ArrayBufferView, dest: number, sendtag: number, source = ANY_SOURCE, recvtag = ANY_TAG, options?: BufferOptions): Promise<Status> {
    this.#check();
    const o = requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'sendrecvReplace');
    const to = requireDest(dest, this.size, 'dest');
    const t = requireTag(sendtag, 'sendtag');
    const span = bufferSpan(buf, o, 'buf');
    const packed = new Uint8Array(span.size);
    if (span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, packed, 0, span.size);
    this.#state.job.runtime.clock.chargeCopy(span.size);
    const receive = this.irecv(buf, source, recvtag, o);
    const send = to === PROC_NULL ? completed(Status.EMPTY) : this.#startSend(byteSpan(packed), to, t, SendMode.STANDARD, this.#context);
    const [status] = await Promise.all([receive.wait(), send.wait()]);
    return status;
  }

  // ---- probes -------------------------------------------------------------------------------

  /** The status of a message that could be received now (MPI_Iprobe), or undefined. */
  iprobe(source = ANY_SOURCE, tag = ANY_TAG): Status | undefined {
    this.#check();
    const from = requireSource(source, this.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    if (from === PROC_NULL) return new Status(PROC_NULL, ANY_TAG, 0);
    return this.#state.p2p.iprobe(this.#context, from, t, this.#peerOf(from));
  }

  /** Wait until a matching message can be received (MPI_Probe); its status has the size to receive. */
  async probe(source = ANY_SOURCE, tag = ANY_TAG): Promise<Status> {
    this.#check();
    const from = requireSource(source, this.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    if (from === PROC_NULL) return new Status(PROC_NULL, ANY_TAG, 0);
    const probe = this.#state.p2p.probe(this.#context, from, t, this.#peerOf(from));
    // Declared as every blocking wait is: deadlock and timeout reports name it, and it holds the process.
    const runtime = this.#state.job.runtime;
    if (runtime.declareWait === undefined) return probe;
    return runtime.declareWait(`MPI probe from ${from === ANY_SOURCE ? 'any source' : `rank ${from}`} tag ${t === ANY_TAG ? 'any' : t} on ${this.#name}`, probe);
  }

  // ---- collectives (coll/: algorithms chosen by size; hardware barrier and bcast when usable) -

  /** Wait until every member has called (MPI_Barrier). */
  barrier(): Promise<void> {
    return this.#collective('barrier', (c) => c.barrier());
  }

  /** `root`'s buffer to every member (MPI_Bcast). */
  bcast(buf: ArrayBufferView, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`bcast from ${root}`, (c) => c.bcast(buf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'bcast')));
  }

  /** `op` over every member's `sendbuf` into `recvbuf` at `root` (MPI_Reduce); IN_PLACE at the root. */
  reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`reduce to ${root}`, (c) => c.reduce(sendbuf, recvbuf, op, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduce')));
  }

  /** `op` over every member's `sendbuf` into every `recvbuf` (MPI_Allreduce); IN_PLACE allowed. */
  allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('allreduce', (c) => c.allreduce(sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'allreduce')));
  }

  /** Each member's `count` elements into `recvbuf` at `root`, in rank order (MPI_Gather); IN_PLACE at the root. */
  gather(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`gather to ${root}`, (c) => c.gather(sendbuf, recvbuf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'gather')));
  }

  /** As gather with per-rank counts and displacements (in elements) at the root (MPI_Gatherv). */
  gatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, recvCounts: readonly number[] | null, displs: readonly number[] | null, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`gatherv to ${root}`, (c) => c.gatherv(sendbuf, recvbuf, recvCounts, displs, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'gatherv')));
  }

  /** Block r of `root`'s `sendbuf` to rank r (MPI_Scatter); IN_PLACE as the root's recvbuf. */
  scatter(sendbuf: ArrayBufferView | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`scatter from ${root}`, (c) => c.scatter(sendbuf, recvbuf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'scatter')));
  }

  /** As scatter with per-rank counts and displacements at the root (MPI_Scatterv). */
  scatterv(sendbuf: ArrayBufferView | null, sendCounts: readonly number[] | null, displs: readonly number[] | null, recvbuf: ArrayBufferView | InPlace, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`scatterv from ${root}`, (c) => c.scatterv(sendbuf, sendCounts, displs, recvbuf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'scatterv')));
  }

  /** Every member's block to every member, in rank order (MPI_Allgather); IN_PLACE allowed. */
  allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: BufferOptions): Promise<void> {
    return this.#collective('allgather', (c) => c.allgather(sendbuf, recvbuf, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'allgather')));
  }

  /** As allgather with per-rank counts and displacements (MPI_Allgatherv). */
  allgatherv(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options?: BufferOptions): Promise<void> {
    return this.#collective('allgatherv', (c) => c.allgatherv(sendbuf, recvbuf, recvCounts, displs ?? (null as never), requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'allgatherv')));
  }

  /** Block r of every member's `sendbuf` to rank r (MPI_Alltoall); IN_PLACE allowed. */
  alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: BufferOptions): Promise<void> {
    return this.#collective('alltoall', (c) => c.alltoall(sendbuf, recvbuf, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'alltoall')));
  }

  /** As alltoall with per-rank counts and displacements on both sides (MPI_Alltoallv); IN_PLACE allowed (send counts then ignored). */
  alltoallv(
    sendbuf: SendBuffer,
    sendCounts: readonly number[] | null,
    sdispls: readonly number[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[] | null,
    options?: BufferOptions,
  ): Promise<void> {
    return this.#collective('alltoallv', (c) => c.alltoallv(sendbuf, sendCounts, sdispls, recvbuf, recvCounts, rdispls, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'alltoallv')));
  }

  /** `op` over every member's `sendbuf`, block r (the size of `recvbuf`) left at rank r (MPI_Reduce_scatter_block). */
  reduceScatterBlock(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('reduceScatterBlock', (c) => c.reduceScatterBlock(sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduceScatterBlock')));
  }

  /** `op` over every member's `sendbuf`, `recvCounts[r]` elements left at rank r (MPI_Reduce_scatter). */
  reduceScatter(sendbuf: SendBuffer, recvbuf: ArrayBufferView, recvCounts: readonly number[], op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('reduceScatter', (c) => c.reduceScatter(sendbuf, recvbuf, recvCounts, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduceScatter')));
  }

  /** Rank r gets `op` over ranks 0..r (MPI_Scan); IN_PLACE allowed. */
  scan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('scan', (c) => c.scan(sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'scan')));
  }

  /** Rank r gets `op` over ranks 0..r−1; rank 0's recvbuf is left as it was (MPI_Exscan). */
  exscan(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('exscan', (c) => c.exscan(sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'exscan')));
  }

  /** Run a collective: checks first (a bad call rejects on every rank alike), and its wait named for deadlock reports. */
  async #collective(what: string, body: (c: Collectives) => Promise<void>): Promise<void> {
    this.#check();
    const run = body(this.#collectives());
    const runtime = this.#state.job.runtime;
    await (runtime.declareWait === undefined ? run : runtime.declareWait(`MPI ${what} on ${this.#name}`, run));
  }

  #collectives(): Collectives {
    if (this.#coll === undefined) {
      const members = this.#group.worldRanks;
      const channel = new CollChannel(this.#state.p2p, this.#context + 1, members, this.rank, this.#state.job.runtime.clock);
      this.#coll = new Collectives({ state: this.#state, channel, name: this.#name, members });
    }
    return this.#coll;
  }

  // ---- communicators ------------------------------------------------------------------------

  /** A new communicator with the same group and a new context (MPI_Comm_dup). Collective. */
  async dup(): Promise<Comm> {
    this.#check();
    const [contexts] = await this.#exchange([this.#state.nextContext]);
    const context = this.#agree(contexts);
    return new Comm(this.#state, this.#group, context, `${this.#name}.dup`);
  }

  /**
   * Partition by `color` (MPI_Comm_split): ranks with the same colour form a communicator, ordered by
   * `key` then by rank here; `UNDEFINED` joins none and gets null. Collective.
   */
  async split(color: number, key = 0): Promise<Comm | null> {
    this.#check();
    // Both travel as int32 (MPI's C int): anything wider would wrap on the way.
    if (color !== UNDEFINED && (typeof color !== 'number' || !Number.isInteger(color) || color < 0 || color > INT32_MAX)) {
      throw new MpiError(ErrorClass.ERR_ARG, `color must be an integer in [0, ${INT32_MAX}] or UNDEFINED, got ${describeValue(color)}`, { argument: 'color' });
    }
    if (typeof key !== 'number' || !Number.isInteger(key) || key < INT32_MIN || key > INT32_MAX) {
      throw new MpiError(ErrorClass.ERR_ARG, `key must be an integer in [${INT32_MIN}, ${INT32_MAX}], got ${describeValue(key)}`, { argument: 'key' });
    }
    const [contexts, colors, keys] = await this.#exchange([this.#state.nextContext, color, key]);
    const context = this.#agree(contexts);
    if (color === UNDEFINED) return null;
    const members: number[] = [];
    for (let r = 0; r < this.size; r++) if (colors[r] === color) members.push(r);
    members.sort((a, b) => keys[a] - keys[b] || a - b);
    const group = new Group(
      members.map((r) => this.#group.worldRanks[r]),
      this.#group.myWorldRank,
    );
    return new Comm(this.#state, group, context, `${this.#name}.split(${color})`);
  }

  /** A communicator of `group`, a subset of this one's (MPI_Comm_create); null where not a member. Collective. */
  async create(group: Group): Promise<Comm | null> {
    this.#check();
    requireGroup(group, 'group');
    const outside = group.worldRanks.find((w) => !this.#group.worldRanks.includes(w));
    if (outside !== undefined) throw new MpiError(ErrorClass.ERR_GROUP, `group holds world rank ${outside}, which is not in this communicator`, { argument: 'group' });
    const [contexts] = await this.#exchange([this.#state.nextContext]);
    const context = this.#agree(contexts);
    if (group.rank === UNDEFINED) return null;
    return new Comm(this.#state, group, context, `${this.#name}.create`);
  }

  /** Mark freed (MPI_Comm_free): later calls fail with ERR_COMM; operations already started complete. */
  free(): void {
    this.#check();
    if (this === this.#state.world || this === this.#state.self) {
      throw new MpiError(ErrorClass.ERR_COMM, `${this.#name} cannot be freed`, { argument: 'comm' });
    }
    this.#freed = true;
  }

  /** The agreed new context: the largest unused id of any member; everyone moves past it. */
  #agree(contexts: readonly number[]): number {
    const context = Math.max(...contexts);
    this.#state.nextContext = context + 2;
    return context;
  }

  /** Allgather of a few integers per rank (the library's own exchange for communicator creation). */
  async #exchange(values: readonly number[]): Promise<number[][]> {
    const n = this.size;
    const width = values.length;
    const all = new Int32Array(n * width);
    const exchanged = this.#collectives().allgather(Int32Array.from(values), all);
    const runtime = this.#state.job.runtime;
    // Declared as the collectives are (communicator creation is one): reports name it, and it holds the process.
    await (runtime.declareWait === undefined ? exchanged : runtime.declareWait(`MPI communicator creation on ${this.#name}`, exchanged));
    const columns: number[][] = [];
    for (let c = 0; c < width; c++) {
      const column: number[] = [];
      for (let r = 0; r < n; r++) column.push(all[r * width + c]);
      columns.push(column);
    }
    return columns;
  }

  #check(): void {
    this.#state.requireActive();
    if (this.#freed) throw new MpiError(ErrorClass.ERR_COMM, `${this.#name} has been freed`, { argument: 'comm' });
  }
}

/** A request that is complete from the start (PROC_NULL, a buffered send's copy). */
function completed(status: Status): Request {
  const core = new RequestCore();
  core.complete(status);
  return new Request(core);
}

