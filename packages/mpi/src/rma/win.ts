import { RequestCore } from '../adi/request-core.js';
import type { BufferSpan } from '../adi/transfer.js';
import { bufferSpan } from '../api/buffer-span.js';
import { Comm } from '../api/comm.js';
import { PROC_NULL } from '../api/constants.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import type { Group} from '../api/group.js';
import { requireGroup } from '../api/group.js';
import type { MpiState } from '../api/mpi-state.js';
import { Request } from '../api/request.js';
import { Status } from '../api/status.js';
import { Op } from '../coll/op.js';
import type { ExposedMemory } from '../device/rdma-transport.js';
import { WindowMemory } from './apply.js';
import { RmaChannel, type RemoteWindow } from './channel.js';
import { checkTransfer, elementOf, requireDisp, requireDispUnit, requireRmaOp, requireSameElement, requireSwappable, requireTargetRank, type CheckedTransfer, type RmaOptions } from './checks.js';
import type { LockMode } from './lock-manager.js';
import type { RmaOperation } from './operation.js';
import { Outstanding } from './outstanding.js';
import { AmRoute } from './am-path.js';
import { RMA_PATHS, startOperation } from './path-table.js';
import type { OriginState } from './paths.js';
import { SyncReplies } from './replies.js';
import { Epochs, MODE_ALL, syncError } from './synchronization.js';
import { RmaTarget } from './target.js';
import { RmaKind } from './wire.js';

/** Options of window creation. */
export interface WinOptions {
  /** Bytes per displacement unit at this rank (MPI's disp_unit); default 1. */
  readonly dispUnit?: number;
}

type Kind = RmaOperation['kind'];
const INFO = 6;

/**
 * An MPI window (MPI_Win): memory each member of a communicator exposes to the others' one-sided
 * operations. Operations return at once and complete at the next synchronisation (fence, PSCW,
 * unlock, flush); each is carried out by the first path of `RMA_PATHS` that accepts it (direct
 * RDMA where the device offers it, messages otherwise). Bad arguments throw an `MpiError` at once.
 */
export class Win {
  readonly #state: MpiState;
  readonly #comm: Comm;
  readonly #channel: RmaChannel;
  readonly #origin: OriginState;
  readonly #epochs: Epochs;
  readonly #target: RmaTarget;
  readonly #exposed: ExposedMemory | undefined;
  readonly #memory: Uint8Array;
  readonly dispUnit: number;
  #freed = false;

  private constructor(state: MpiState, comm: Comm, memory: Uint8Array, dispUnit: number, remotes: RemoteWindow[], exposed: ExposedMemory | undefined) {
    this.#state = state;
    this.#comm = comm;
    this.#memory = memory;
    this.dispUnit = dispUnit;
    this.#exposed = exposed;
    const clock = state.job.runtime.clock;
    const transport = exposed === undefined ? undefined : state.device.rdmaTransport;
    this.#channel = new RmaChannel(state.p2p, comm.context, comm.group.worldRanks, comm.rank, clock, new WindowMemory(memory, clock), remotes, transport);
    const n = comm.size;
    this.#origin = { channel: this.#channel, outstanding: new Outstanding(n), issued: new Float64Array(n), unconfirmed: new Uint32Array(n), uses: {}, am: undefined };
    const replies = new SyncReplies(n);
    const target = new RmaTarget(this.#channel, replies);
    this.#target = target;
    this.#epochs = new Epochs(this.#channel, this.#origin, target, replies, (issued, expected) => comm.alltoall(issued, expected));
    this.#channel.listen(target.handle);
    this.#channel.watch((peer, error) => {
      replies.lostPeer(peer, error);
      target.lostPeer(peer, error);
      this.#origin.am?.lostPeer(peer, error);
    });
  }

  /** Expose `buf` to every member of `comm` (MPI_Win_create). Collective. */
  static async create(comm: Comm, buf: ArrayBufferView, options?: WinOptions): Promise<Win> {
    requireComm(comm);
    if (!ArrayBuffer.isView(buf)) throw new MpiError(ErrorClass.ERR_BUFFER, `buf must be a TypedArray, Buffer or DataView, got ${describeValue(buf)}`, { argument: 'buf' });
    const memory = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    return Win.#build(comm, memory, windowOptions(options));
  }

  /** Allocate `bytes` of memory, registered once, and expose it (MPI_Win_allocate); `win.buffer` is it. Collective. */
  static async allocate(comm: Comm, bytes: number, options?: WinOptions): Promise<Win> {
    requireComm(comm);
    if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0 || bytes > 2 ** 31 - 1) {
      throw new MpiError(ErrorClass.ERR_ARG, `bytes must be an integer in [0, 2^31 - 1], got ${describeValue(bytes)}`, { argument: 'bytes' });
    }
    return Win.#build(comm, new Uint8Array(bytes), windowOptions(options));
  }

  static async #build(comm: Comm, memory: Uint8Array, dispUnit: number): Promise<Win> {
    const state = comm.state;
    // The window's own communicator: its context keeps one-sided messages apart from everything else.
    const own = await comm.dup();
    const transport = state.device.rdmaTransport;
    const exposed = transport !== undefined && memory.length > 0 ? transport.expose(memory) : undefined;
    const mine = new Float64Array(INFO);
    mine[0] = memory.length;
    mine[1] = dispUnit;
    if (exposed !== undefined) {
      mine[2] = 1;
      mine[3] = Number(exposed.triplet.rmrContext >> 32n);
      mine[4] = Number(exposed.triplet.rmrContext & 0xffffffffn);
      mine[5] = exposed.triplet.targetOffset;
    }
    const all = new Float64Array(INFO * own.size);
    await own.allgather(mine, all);
    const remotes: RemoteWindow[] = [];
    for (let r = 0; r < own.size; r++) {
      const at = r * INFO;
      const triplet = all[at + 2] === 1 ? { rmrContext: (BigInt(all[at + 3]) << 32n) | BigInt(all[at + 4]), targetOffset: all[at + 5], length: all[at] } : undefined;
      remotes.push({ size: all[at], dispUnit: all[at + 1], triplet });
    }
    const win = new Win(state, own, memory, dispUnit, remotes, exposed);
    // Over LAPI: the window's active-message handler is registered at every member before any uses it.
    win.#origin.am = await AmRoute.open(win.#channel, state.job.ia.extension('active-messages'), state.job.connections, win.#target.handle);
    if (win.#origin.am !== undefined) await own.barrier();
    return win;
  }

  /** The window's memory at this rank (the allocated memory for `allocate`; the bytes of `buf` for `create`). */
  get buffer(): Uint8Array {
    return this.#memory;
  }

  /** The group of the window's communicator (MPI_Win_get_group). */
  get group(): Group {
    return this.#comm.group;
  }

  /** Which path carries which operations, one line each. */
  protocolInfo(): string[] {
    const direct = this.#channel.transport !== undefined;
    const usable = (name: string): boolean => (name === 'rdma-direct' ? direct : name === 'active-messages' ? this.#origin.am !== undefined : true);
    return RMA_PATHS.filter((p) => usable(p.name)).map((p) => `rma: ${p.name}: ${p.describes}`);
  }

  /** Operations carried out per path (e.g. `{ 'rdma-direct': 10, messages: 2 }`). */
  counters(): Readonly<Record<string, number>> {
    return { ...this.#origin.uses };
  }

  // ---- operations -----------------------------------------------------------------------------

  /** Write `origin` into `targetRank`'s window at `targetDisp` (MPI_Put). */
  put(origin: ArrayBufferView, targetRank: number, targetDisp: number, options?: RmaOptions): void {
    this.#transfer(RmaKind.PUT, origin, targetRank, targetDisp, options, undefined);
  }

  /** Read `targetRank`'s window at `targetDisp` into `origin` (MPI_Get). */
  get(origin: ArrayBufferView, targetRank: number, targetDisp: number, options?: RmaOptions): void {
    this.#transfer(RmaKind.GET, origin, targetRank, targetDisp, options, undefined);
  }

  /** Combine `origin` into the target's elements with `op`, atomically per element (MPI_Accumulate). */
  accumulate(origin: ArrayBufferView, targetRank: number, targetDisp: number, op: Op, options?: RmaOptions): void {
    this.#accumulate(RmaKind.ACCUMULATE, origin, undefined, targetRank, targetDisp, op, options, undefined);
  }

  /** `put` that returns a request, complete when `origin` may be reused (MPI_Rput). */
  rput(origin: ArrayBufferView, targetRank: number, targetDisp: number, options?: RmaOptions): Request {
    return this.#request((local) => this.#transfer(RmaKind.PUT, origin, targetRank, targetDisp, options, local));
  }

  /** `get` that returns a request, complete when the data is in `origin` (MPI_Rget). */
  rget(origin: ArrayBufferView, targetRank: number, targetDisp: number, options?: RmaOptions): Request {
    return this.#request((local) => this.#transfer(RmaKind.GET, origin, targetRank, targetDisp, options, local));
  }

  /** `accumulate` that returns a request (MPI_Raccumulate). */
  raccumulate(origin: ArrayBufferView, targetRank: number, targetDisp: number, op: Op, options?: RmaOptions): Request {
    return this.#request((local) => this.#accumulate(RmaKind.ACCUMULATE, origin, undefined, targetRank, targetDisp, op, options, local));
  }

  /** The target's old elements into `result`, then `origin op` them (MPI_Get_accumulate); `Op.NO_OP` only reads. */
  getAccumulate(origin: ArrayBufferView, result: ArrayBufferView, targetRank: number, targetDisp: number, op: Op, options?: RmaOptions): void {
    this.#accumulate(RmaKind.GET_ACCUMULATE, origin, result, targetRank, targetDisp, op, options, undefined);
  }

  /** One element: the old value into `result[0]`, `value[0] op` it at the target (MPI_Fetch_and_op). */
  fetchAndOp(value: ArrayBufferView, result: ArrayBufferView, targetRank: number, targetDisp: number, op: Op): void {
    this.#accumulate(RmaKind.GET_ACCUMULATE, value, result, targetRank, targetDisp, op, { count: 1 }, undefined);
  }

  /** One element: the old value into `result[0]`; `value[0]` stored where it equalled `compare[0]` (MPI_Compare_and_swap). */
  compareAndSwap(value: ArrayBufferView, compare: ArrayBufferView, result: ArrayBufferView, targetRank: number, targetDisp: number): void {
    this.#check();
    if (targetRank === PROC_NULL) return;
    const t = requireTargetRank(targetRank, this.#comm.size);
    const x = checkTransfer(value, { count: 1 }, requireDisp(targetDisp), this.#channel.remotes[t], 'value');
    requireSwappable(x.originType, 'value');
    const compareSpan = this.#like(compare, x, 'compare');
    const resultSpan = this.#like(result, x, 'result');
    this.#requireEpoch(t);
    this.#start({ kind: RmaKind.COMPARE_AND_SWAP, target: t, origin: x.origin, result: resultSpan, compare: compareSpan, span: x.span, targetType: x.targetType, op: undefined, element: x.originType, local: undefined });
  }

  /**
   * @internal For tests of the target's own check: a put, get or accumulate of `origin`'s bytes at
   * byte `targetOffset` of `targetRank`'s window, past the origin's range check, so that what
   * refuses it is the target (its RMR for direct RDMA, its message handler otherwise). The refusal
   * is reported by the next synchronisation with `targetRank`.
   */
  uncheckedForTesting(kind: 'put' | 'get' | 'accumulate', origin: Uint8Array, targetRank: number, targetOffset: number): void {
    this.#check();
    const t = requireTargetRank(targetRank, this.#comm.size);
    this.#requireEpoch(t);
    const x = checkTransfer(origin, undefined, 0, { size: Infinity, dispUnit: 1, triplet: undefined });
    const span = { ...x.span, offset: targetOffset };
    const opKind = kind === 'put' ? RmaKind.PUT : kind === 'get' ? RmaKind.GET : RmaKind.ACCUMULATE;
    const accumulating = opKind === RmaKind.ACCUMULATE;
    this.#start({ kind: opKind, target: t, origin: x.origin, result: undefined, compare: undefined, span, targetType: x.targetType, op: accumulating ? Op.BXOR : undefined, element: accumulating ? x.originType : undefined, local: undefined });
  }

  #transfer(kind: Kind, origin: ArrayBufferView, targetRank: number, targetDisp: number, options: RmaOptions | undefined, local: RequestCore | undefined): void {
    this.#check();
    if (targetRank === PROC_NULL) return local?.complete(Status.EMPTY);
    const t = requireTargetRank(targetRank, this.#comm.size);
    const x = checkTransfer(origin, options, requireDisp(targetDisp), this.#channel.remotes[t]);
    this.#requireEpoch(t);
    this.#start({ kind, target: t, origin: x.origin, result: undefined, compare: undefined, span: x.span, targetType: x.targetType, op: undefined, element: undefined, local });
  }

  #accumulate(kind: Kind, origin: ArrayBufferView, result: ArrayBufferView | undefined, targetRank: number, targetDisp: number, op: Op, options: RmaOptions | undefined, local: RequestCore | undefined): void {
    this.#check();
    if (targetRank === PROC_NULL) return local?.complete(Status.EMPTY);
    const t = requireTargetRank(targetRank, this.#comm.size);
    const x = checkTransfer(origin, options, requireDisp(targetDisp), this.#channel.remotes[t]);
    const element = elementOf(x.originType, 'datatype');
    requireSameElement(element, elementOf(x.targetType, 'targetDatatype'));
    const checkedOp = requireRmaOp(op, element, kind === RmaKind.GET_ACCUMULATE);
    const resultSpan = result === undefined ? undefined : this.#like(result, x, 'result');
    this.#requireEpoch(t);
    this.#start({ kind, target: t, origin: x.origin, result: resultSpan, compare: undefined, span: x.span, targetType: x.targetType, op: checkedOp, element, local });
  }

  /** A buffer for as many bytes of the origin's type as the origin moves (a fetch's result, a compare value). */
  #like(buf: ArrayBufferView, x: CheckedTransfer, argument: string): BufferSpan {
    const span = bufferSpan(buf, { datatype: x.originType, count: x.origin.count }, argument);
    return span;
  }

  #requireEpoch(target: number): void {
    if (!this.#epochs.covers(target)) throw syncError(`an operation to rank ${target} outside an access epoch: call fence, start (with it in the group), lock(${target}) or lockAll first`, 'targetRank');
  }

  #start(op: RmaOperation): void {
    startOperation(op, this.#origin);
  }

  #request(start: (local: RequestCore) => void): Request {
    const local = new RequestCore();
    start(local);
    return new Request(local, undefined, this.#state.job.runtime);
  }

  // ---- synchronisation ------------------------------------------------------------------------

  /** Close the access and exposure epochs and open the next (MPI_Win_fence). Collective. `assert`: MODE_* bits. */
  fence(assert = 0): Promise<void> {
    this.#check();
    if (typeof assert !== 'number' || !Number.isInteger(assert) || assert < 0 || (assert & ~MODE_ALL) !== 0) {
      throw new MpiError(ErrorClass.ERR_ARG, `assert must be 0 or MODE_* bits (NOCHECK, NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED), got ${describeValue(assert)}`, { argument: 'assert' });
    }
    return this.#declared('fence', this.#epochs.fence(assert));
  }

  /** Open an exposure epoch to the members of `group` (MPI_Win_post). */
  async post(group: Group): Promise<void> {
    this.#check();
    this.#epochs.post(this.#ranksOf(group));
  }

  /** Open an access epoch to the members of `group`; settles once each has posted (MPI_Win_start). */
  start(group: Group): Promise<void> {
    this.#check();
    return this.#declared('start', this.#epochs.start(this.#ranksOf(group)));
  }

  /** Close the access epoch: its operations complete at their targets (MPI_Win_complete). */
  complete(): Promise<void> {
    this.#check();
    return this.#declared('complete', this.#epochs.complete());
  }

  /** Close the exposure epoch once every origin has completed (MPI_Win_wait). */
  wait(): Promise<void> {
    this.#check();
    return this.#declared('wait', this.#epochs.wait());
  }

  /** `wait` without waiting: true (and the epoch closed) when every origin has completed (MPI_Win_test). */
  test(): boolean {
    this.#check();
    return this.#epochs.test();
  }

  /** A passive-target epoch on `rank` (MPI_Win_lock); settles once the lock is granted. */
  lock(rank: number, type: LockMode = 'exclusive'): Promise<void> {
    this.#check();
    const t = requireTargetRank(rank, this.#comm.size, 'rank');
    if (type !== 'exclusive' && type !== 'shared') throw new MpiError(ErrorClass.ERR_ARG, `type must be 'exclusive' or 'shared', got ${describeValue(type)}`, { argument: 'type' });
    return this.#declared(`lock(${t})`, this.#epochs.lock(t, type));
  }

  /** End the epoch on `rank`: its operations complete there, then the lock is released (MPI_Win_unlock). */
  unlock(rank: number): Promise<void> {
    this.#check();
    return this.#declared(`unlock(${rank})`, this.#epochs.unlock(requireTargetRank(rank, this.#comm.size, 'rank')));
  }

  /** Shared locks on every member (MPI_Win_lock_all). */
  lockAll(): Promise<void> {
    this.#check();
    return this.#declared('lockAll', this.#epochs.lockAll());
  }

  /** End a `lockAll` epoch: every operation in it has completed at its target (MPI_Win_unlock_all). */
  unlockAll(): Promise<void> {
    this.#check();
    return this.#declared('unlockAll', this.#epochs.unlockAll());
  }

  /** Operations to `rank` complete at `rank`, the epoch stays open (MPI_Win_flush). */
  flush(rank: number): Promise<void> {
    this.#check();
    return this.#declared(`flush(${rank})`, this.#epochs.flush(requireTargetRank(rank, this.#comm.size, 'rank')));
  }

  /** `flush` to every member (MPI_Win_flush_all). */
  flushAll(): Promise<void> {
    this.#check();
    return this.#declared('flushAll', this.#epochs.flush(undefined));
  }

  /** Operations to `rank` complete here: their buffers reusable, fetched data arrived (MPI_Win_flush_local). */
  flushLocal(rank: number): Promise<void> {
    this.#check();
    return this.#declared(`flushLocal(${rank})`, this.#epochs.flushLocal(requireTargetRank(rank, this.#comm.size, 'rank')));
  }

  /** `flushLocal` to every member (MPI_Win_flush_local_all). */
  flushLocalAll(): Promise<void> {
    this.#check();
    return this.#declared('flushLocalAll', this.#epochs.flushLocal(undefined));
  }

  /** Release the window (MPI_Win_free). Collective; every epoch but a fence's must be closed. */
  async free(): Promise<void> {
    this.#check();
    const busy = this.#epochs.busy;
    if (busy !== undefined) throw syncError(`free while ${busy}`, 'win');
    this.#freed = true;
    await this.#origin.outstanding.idle();
    await this.#comm.barrier();
    this.#channel.close();
    this.#exposed?.close();
    this.#comm.free();
  }

  get freed(): boolean {
    return this.#freed;
  }

  #ranksOf(group: Group): number[] {
    requireGroup(group, 'group');
    const members = this.#comm.group.worldRanks;
    return group.worldRanks.map((w) => {
      const r = members.indexOf(w);
      if (r < 0) throw new MpiError(ErrorClass.ERR_GROUP, `group holds world rank ${w}, which is not in the window's group`, { argument: 'group' });
      return r;
    });
  }

  #declared<T>(what: string, promise: Promise<T>): Promise<T> {
    const runtime = this.#state.job.runtime;
    return runtime.declareWait === undefined ? promise : runtime.declareWait(`MPI win.${what}`, promise);
  }

  #check(): void {
    this.#state.requireActive();
    if (this.#freed) throw new MpiError(ErrorClass.ERR_WIN, 'the window has been freed', { argument: 'win' });
  }
}

function requireComm(comm: unknown): asserts comm is Comm {
  if (!(comm instanceof Comm)) throw new MpiError(ErrorClass.ERR_COMM, `comm must be a Comm, got ${describeValue(comm)}`, { argument: 'comm' });
  if (comm.freed) throw new MpiError(ErrorClass.ERR_COMM, `comm ${comm.name} has been freed`, { argument: 'comm' });
  comm.state.requireActive();
}

function windowOptions(options: unknown): number {
  if (options === undefined) return 1;
  if (typeof options !== 'object' || options === null) throw new MpiError(ErrorClass.ERR_ARG, `options must be an object, got ${describeValue(options)}`, { argument: 'options' });
  const unit = (options as WinOptions).dispUnit;
  return unit === undefined ? 1 : requireDispUnit(unit, 'options.dispUnit');
}
