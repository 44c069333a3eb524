import { RecvRequest as RecvRequestCore, SendMode, type RecvRequest } from '../adi/requests.js';
import { byteSpan, type BufferSpan } from '../adi/transfer.js';
import { packRange } from '../datatype/index.js';
import { bufferSpan, type BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, requireDest, requireOptions, requireRecvTag, requireSource, requireTag } from './check.js';
import { ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { CONGRUENT, Group, IDENT, SIMILAR, UNEQUAL, requireGroup } from './group.js';
import { recvInit, sendInit, type PersistentRequest } from './persistent-request.js';
import { splitType } from './split-type.js';
import { requireSendOptions, requireSendrecvOptions, requireSplitArguments, type RecvOptions, type SendOptions, type SendrecvOptions } from './p2p-options.js';
import type { CartComm } from '../topo/cart-comm.js';
import type { DistGraphComm, DistGraphOptions, GraphComm } from '../topo/graph-comm.js';
import type { MpiState } from './mpi-state.js';
import { Request } from './request.js';
import { Status } from './status.js';
import { RequestCore } from '../adi/request-core.js';
import { allgatherSteps } from '../coll/exchanges.js';
import { CollChannel } from '../coll/channel.js';
import { Collectives } from '../coll/collectives.js';
import type { Steps } from '../coll/schedule.js';
import type { InterComm } from './inter-comm.js';
import { CollectiveCalls } from './collective-calls.js';

/**
 * A communicator (MPI_Comm): a group and a context, so that its traffic never matches another
 * communicator's. Blocking calls return promises; non-blocking ones return a `Request` at once.
 * Ranks, tags and counts are checked before anything moves; errors are `MpiError`s.
 */
export class Comm extends CollectiveCalls {
  readonly #state: MpiState;
  readonly #group: Group;
  /** The group that ranks of point-to-point calls name: the remote group of an intercommunicator, else the group. */
  readonly #peers: Group;
  readonly #context: number;
  #name: string;
  #freed = false;
  #coll: Collectives | undefined;

  /** @internal Communicators come from `mpi.world`, `mpi.self`, `dup`, `split`, `create` and `intercommCreate` (with `remote`). */
  constructor(state: MpiState, group: Group, context: number, name: string, remote?: Group) {
    super();
    this.#state = state;
    this.#group = group;
    this.#peers = remote ?? group;
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

  /** Rename (MPI_Comm_set_name): a string of at most 127 characters (MPI_MAX_OBJECT_NAME − 1). */
  set name(value: string) {
    if (typeof value !== 'string' || value.length > 127) throw new MpiError(ErrorClass.ERR_ARG, `name must be a string of at most 127 characters, got ${describeValue(value)}`, { argument: 'name' });
    this.#name = value;
  }

  get freed(): boolean {
    return this.#freed;
  }

  /** @internal The library state under this communicator (one-sided windows are built on it). */
  get state(): MpiState {
    return this.#state;
  }

  /** @internal The point-to-point context id (the collective one is +1). */
  get context(): number {
    return this.#context;
  }

  // ---- sends --------------------------------------------------------------------------------

  /**
   * Send `buf` to `dest` (MPI_Send; `options.mode`: another mode); resolves once `buf` may be reused.
   * @throws MpiError ERR_RANK, ERR_TAG, ERR_ARG, ERR_BUFFER, ERR_TYPE, ERR_COUNT for that argument; ERR_COMM once freed.
   */
  send(buf: ArrayBufferView, dest: number, tag = 0, options?: SendOptions): Promise<void> {
    // Not an async function: a send that is done when it returns (eager) costs no promise of its
    // own and no turns of the microtask queue beyond the caller's await. Bad arguments still reject.
    try {
      return this.#send(buf, dest, tag, options, true).waitDone();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Synchronous send (MPI_Ssend): resolves once the matching receive has started. Throws as `send`. */
  async ssend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'ssend'), mode: 'synchronous' }).wait();
  }

  /** Ready send (MPI_Rsend): the matching receive must already be posted. Throws as `send`. */
  async rsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.#send(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'rsend'), mode: 'ready' }, true).wait();
  }

  /** Buffered send (MPI_Bsend) through `mpi.bufferAttach`'s buffer (ERR_BUFFER without one); resolves at once. */
  async bsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Promise<void> {
    await this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'bsend'), mode: 'buffered' }).wait();
  }

  /** Start a synchronous send (MPI_Issend); its request completes once the matching receive has started. */
  issend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Request {
    return this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'issend'), mode: 'synchronous' });
  }

  /** Start a ready send (MPI_Irsend): the matching receive must already be posted. */
  irsend(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): Request {
    return this.isend(buf, dest, tag, { ...requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'irsend'), mode: 'ready' });
  }

  /** Start a buffered send (MPI_Ibsend) through the attached buffer; its request completes at once. */
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
    const { options: o, mode } = requireSendOptions(options, blocking ? 'send' : 'isend');
    const to = requireDest(dest, this.#peers.size, 'dest');
    const t = requireTag(tag, 'tag');
    const span = bufferSpan(buf, o, 'buf');
    if (to === PROC_NULL) return completed(Status.EMPTY);
    return this.#startSend(span, to, t, mode, this.#context, blocking);
  }

  #startSend(span: BufferSpan, dest: number, tag: number, mode: SendMode, context: number, blocking = false): Request {
    const peer = this.#peers.worldRanks[dest];
    if (mode !== SendMode.BUFFERED) return new Request(this.#state.p2p.isend(peer, context, this.rank, tag, span, mode, blocking), undefined, this.#state.waits);
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
    return failedAtOnce ? new Request(request, undefined, this.#state.waits) : completed(Status.EMPTY);
  }

  // ---- receives -----------------------------------------------------------------------------

  /**
   * Receive into `buf` from `source` with `tag` (MPI_Recv; ANY_SOURCE, ANY_TAG); resolves to the status.
   * @throws MpiError ERR_RANK, ERR_TAG, ERR_ARG, ERR_BUFFER, ERR_TYPE, ERR_COUNT for that argument; ERR_COMM once freed.
   */
  recv(buf: ArrayBufferView, source = ANY_SOURCE, tag = ANY_TAG, options?: RecvOptions): Promise<Status> {
    // As `send`: the request's own promise, not one an async function wraps around it.
    try {
      return this.irecv(buf, source, tag, options).wait();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Start a receive (MPI_Irecv); its request resolves to the status. Throws as `recv`. */
  irecv(buf: ArrayBufferView, source = ANY_SOURCE, tag = ANY_TAG, options?: RecvOptions): Request {
    this.#check();
    const o = requireOptions<RecvOptions>(options, 'options', BUFFER_OPTION_KEYS, 'irecv');
    const from = requireSource(source, this.#peers.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    const span = bufferSpan(buf, o, 'buf');
    if (from === PROC_NULL) {
      const done = new RecvRequestCore(this.#context, PROC_NULL, ANY_TAG, span);
      done.complete(new Status(PROC_NULL, ANY_TAG, 0, false, span.program.size));
      return new Request(done, this.#cancel);
    }
    return this.#startRecv(span, from, t, this.#context);
  }

  /** The world rank of communicator rank `source`; undefined for ANY_SOURCE. */
  #peerOf(source: number): number | undefined {
    return source === ANY_SOURCE ? undefined : this.#peers.worldRanks[source];
  }

  #startRecv(span: BufferSpan, source: number, tag: number, context: number): Request {
    const request = this.#state.p2p.irecv(context, source, tag, span, this.#peerOf(source));
    return new Request(request, this.#cancel, this.#state.waits);
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
    const o = requireSendrecvOptions(options);
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
    const to = requireDest(dest, this.#peers.size, 'dest');
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
    const from = requireSource(source, this.#peers.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    if (from === PROC_NULL) return new Status(PROC_NULL, ANY_TAG, 0);
    return this.#state.p2p.iprobe(this.#context, from, t, this.#peerOf(from));
  }

  /** Wait until a matching message can be received (MPI_Probe); its status has the size to receive. */
  async probe(source = ANY_SOURCE, tag = ANY_TAG): Promise<Status> {
    this.#check();
    const from = requireSource(source, this.#peers.size, 'source');
    const t = requireRecvTag(tag, 'tag');
    if (from === PROC_NULL) return new Status(PROC_NULL, ANY_TAG, 0);
    const probe = this.#state.p2p.probe(this.#context, from, t, this.#peerOf(from));
    // Declared as every blocking wait is: deadlock and timeout reports name it, and it holds the process.
    const runtime = this.#state.job.runtime;
    if (runtime.declareWait === undefined) return probe;
    return runtime.declareWait(`MPI probe from ${from === ANY_SOURCE ? 'any source' : `rank ${from}`} tag ${t === ANY_TAG ? 'any' : t} on ${this.#name}`, probe);
  }

  // ---- collectives (coll/; the rest in collective-calls.ts): hardware barrier and bcast when usable -

  /** Wait until every member has called (MPI_Barrier). */
  barrier(): Promise<void> {
    return this.#collective('barrier', (c) => c.barrier());
  }

  /** `root`'s buffer to every member (MPI_Bcast). */
  bcast(buf: ArrayBufferView, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`bcast from ${root}`, (c) => c.bcast(buf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'bcast')));
  }

  /** Run a collective: checks first (a bad call rejects on every rank alike), and its wait named for deadlock reports. */
  async #collective(what: string, body: (c: Collectives) => Promise<void>): Promise<void> {
    this.#check();
    const run = body(this.#collectives());
    const runtime = this.#state.job.runtime;
    await (runtime.declareWait === undefined ? run : runtime.declareWait(`MPI ${what} on ${this.#name}`, run));
  }

  #collectives(): Collectives {
    if (this.#peers !== this.#group) throw new MpiError(ErrorClass.ERR_COMM, `${this.#name} is an intercommunicator: this collective is defined on intracommunicators only`, { argument: 'comm' });
    if (this.#coll === undefined) {
      const members = this.#group.worldRanks;
      const channel = new CollChannel(this.#state.p2p, this.#context + 1, members, this.rank, this.#state.job.runtime.clock, this.#name);
      this.#coll = new Collectives({ state: this.#state, channel, members });
    }
    return this.#coll;
  }

  // ---- nonblocking collectives, alltoallw (collective-calls.ts), intercommunicators (inter-comm.ts) ----

  /** @internal Start a nonblocking collective's schedule. */
  protected startCollective(what: string, steps: (ch: CollChannel) => Steps): Request {
    this.#check();
    return new Request(this.#collectives().start(what, steps), undefined, this.#state.job.runtime);
  }

  /** @internal Run a blocking collective's schedule. */
  protected runCollective(what: string, steps: (ch: CollChannel) => Steps): Promise<void> {
    return this.#collective(what, (c) => c.run(steps));
  }

  /**
   * An intercommunicator between this communicator's group and another, disjoint one
   * (MPI_Intercomm_create): the two leaders meet on `peerComm` (significant at `localLeader` only)
   * with `tag`. Collective over both groups.
   */
  async intercommCreate(localLeader: number, peerComm: Comm | null, remoteLeader: number, tag: number): Promise<InterComm> {
    this.#check();
    return this.#state.intercomms!.create(this.#state, this, localLeader, peerComm, remoteLeader, tag);
  }

  /** Whether this is an intercommunicator (MPI_Comm_test_inter). */
  get isInter(): boolean {
    return this.#peers !== this.#group;
  }

  /** An intercommunicator's remote group (MPI_Comm_remote_group); ERR_COMM on an intracommunicator. */
  get remoteGroup(): Group {
    if (!this.isInter) throw new MpiError(ErrorClass.ERR_COMM, `${this.#name} is an intracommunicator: it has no remote group`, { argument: 'comm' });
    return this.#peers;
  }

  /** The remote group's size (MPI_Comm_remote_size); ERR_COMM on an intracommunicator. */
  get remoteSize(): number {
    return this.remoteGroup.size;
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
    requireSplitArguments(color, key, UNDEFINED);
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

  // ---- persistent requests, comparison, splitType, topologies (api/persistent-request.ts, api/split-type.ts, topo/) ----

  /** A standard send bound to its arguments, started by `start()` (MPI_Send_init). */
  sendInit(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): PersistentRequest {
    return sendInit(this, buf, dest, tag, options, 'standard');
  }

  /** As sendInit in synchronous mode (MPI_Ssend_init). */
  ssendInit(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): PersistentRequest {
    return sendInit(this, buf, dest, tag, options, 'synchronous');
  }

  /** As sendInit in ready mode (MPI_Rsend_init). */
  rsendInit(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): PersistentRequest {
    return sendInit(this, buf, dest, tag, options, 'ready');
  }

  /** As sendInit in buffered mode (MPI_Bsend_init): each start copies into the attached buffer. */
  bsendInit(buf: ArrayBufferView, dest: number, tag = 0, options?: BufferOptions): PersistentRequest {
    return sendInit(this, buf, dest, tag, options, 'buffered');
  }

  /** A receive bound to its arguments, started by `start()` (MPI_Recv_init). */
  recvInit(buf: ArrayBufferView, source = ANY_SOURCE, tag = ANY_TAG, options?: BufferOptions): PersistentRequest {
    return recvInit(this, buf, source, tag, options);
  }

  /** IDENT (the same communicator), CONGRUENT (same group, in order), SIMILAR (same members) or UNEQUAL (MPI_Comm_compare). */
  compare(other: Comm): number {
    this.#check();
    if (!(other instanceof Comm)) throw new MpiError(ErrorClass.ERR_COMM, `other must be a Comm, got ${describeValue(other)}`, { argument: 'other' });
    if (other.#freed) throw new MpiError(ErrorClass.ERR_COMM, `other (${other.#name}) has been freed`, { argument: 'other' });
    if (other.#context === this.#context) return IDENT;
    const groups = this.#group.compare(other.#group);
    return groups === IDENT ? CONGRUENT : groups === SIMILAR ? SIMILAR : UNEQUAL;
  }

  /** One communicator per host for SPLIT_TYPE_SHARED, ordered by `key` (MPI_Comm_split_type); UNDEFINED gets null. Collective. */
  async splitType(type: number, key = 0): Promise<Comm | null> {
    this.#check();
    return splitType(this, this.#state, type, key);
  }

  /** A Cartesian grid of the first dims[0] × dims[1] × … members (MPI_Cart_create); null for the rest. Collective. */
  async cartCreate(dims: readonly number[], periods: readonly boolean[], reorder = false): Promise<CartComm | null> {
    this.#check();
    return this.#state.topologies.cartCreate(this, this.#state, dims, periods, reorder);
  }

  /** A graph of the first index.length members (MPI_Graph_create); null for the rest. Collective. */
  async graphCreate(index: readonly number[], edges: readonly number[], reorder = false): Promise<GraphComm | null> {
    this.#check();
    return this.#state.topologies.graphCreate(this, this.#state, index, edges, reorder);
  }

  /** A distributed graph: this process's in- and out-neighbours (MPI_Dist_graph_create_adjacent). Collective. */
  async distGraphCreateAdjacent(sources: readonly number[], destinations: readonly number[], options?: DistGraphOptions): Promise<DistGraphComm> {
    this.#check();
    return this.#state.topologies.distGraphCreateAdjacent(this, this.#state, sources, destinations, options);
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
    const exchanged = this.#collectives().run((ch) => allgatherSteps(ch, Int32Array.from(values), all, {}));
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

