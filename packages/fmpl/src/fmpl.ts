import { DatError, DatStatus, MemAccess, rankContext, startJob, type DaplJob, type HwCollectives, type Lmr, type RankContext } from '@dapl/core';
import { FmplEngine, type PathCounters, type Received } from './engine.js';
import { FmplCode, FmplError, describe } from './errors.js';
import { SLOT_BARRIER, SLOT_BCAST, SLOT_COMM, SLOT_REDUCE } from './layout.js';
import { MAX_RANKS, MAX_SLOTS } from './signals.js';

/** FMPL_ANY_TAG: receive with any matching-area index (from a given source). */
export const FMPL_ANY_TAG = -1;

/** A group of processes (fmpl_comm_create); `COMM_WORLD` holds them all. */
export class FmplComm {
  /** @internal */
  constructor(
    /** World rank of each member, in rank order. */
    readonly members: readonly number[],
    readonly rank: number,
  ) {}

  get size(): number {
    return this.members.length;
  }
}

/** A reduction: leaves `acc[i] op incoming[i]` in `acc` (FMPL's `func`). */
export type FmplReduceFunction = (acc: Float64Array | Int32Array | Uint8Array, incoming: Float64Array | Int32Array | Uint8Array, count: number) => void;

type Numbers = Float64Array | Int32Array;

/** Options of `Fmpl.init`. */
export interface FmplInitOptions {
  /** Matching-area indexes per peer (fmpl_init's `count`); the same on every rank. */
  readonly matchingAreas: number;
  /** Barrier and broadcast on `hw-collectives` when usable (auto), never (software), or always (hardware: an error where it cannot). */
  readonly collectives?: 'auto' | 'hardware' | 'software';
  /** Bytes of each of the two library buffers a hardware broadcast goes through (double buffering). */
  readonly hwBuffer?: number;
}

const contexts = new WeakMap<object, 'ready' | 'finalized'>();
const PROCESS = {};
const key = (): RankContext | typeof PROCESS => rankContext.getStore() ?? PROCESS;

/**
 * FMPL (Tatebe et al., the FMPL paper): point-to-point on remote memory writes with sender-side matching by
 * matching-area index — zero copy in one round trip, or one copy after `sendbufSet`'s timeout —
 * a separate any-source domain matched at the receiver, and binary-tree or hardware collectives.
 * Every call validates its arguments and throws `FmplError`.
 */
export class Fmpl {
  readonly COMM_WORLD: FmplComm;
  readonly #job: DaplJob;
  readonly #engine: FmplEngine;
  readonly #mode: 'auto' | 'hardware' | 'software';
  readonly #hwBytes: number;
  /** Each communicator's pair: hardware broadcasts on two communicators may run at once. */
  readonly #hwBuffers = new WeakMap<FmplComm, [Lmr, Lmr]>();
  #finalized = false;
  readonly #pending = new Map<string, Promise<unknown>>();
  readonly collectiveCounters = { hwBarriers: 0, swBarriers: 0, hwBcasts: 0, swBcasts: 0 };

  private constructor(job: DaplJob, engine: FmplEngine, options: FmplInitOptions) {
    this.#job = job;
    this.#engine = engine;
    this.#mode = options.collectives ?? 'auto';
    this.#hwBytes = options.hwBuffer ?? 256 * 1024;
    this.COMM_WORLD = new FmplComm(
      Array.from({ length: job.size }, (_, r) => r),
      job.rank,
    );
  }

  /** fmpl_init: join the job and expose the matching and completion-flag areas. Once per rank. */
  static async init(options: FmplInitOptions): Promise<Fmpl> {
    if (contexts.has(key())) throw new FmplError(FmplCode.ERR_ARG, contexts.get(key()) === 'finalized' ? 'Fmpl.init() after finalize()' : 'Fmpl.init() was already called in this rank');
    if (typeof options !== 'object' || options === null) throw new FmplError(FmplCode.ERR_ARG, `options must be { matchingAreas }, got ${describe(options)}`, { argument: 'options' });
    const count = options.matchingAreas;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_SLOTS - 16) {
      throw new FmplError(FmplCode.ERR_ARG, `matchingAreas must be an integer in [1, ${MAX_SLOTS - 16}], got ${describe(count)}`, { argument: 'matchingAreas' });
    }
    if (options.collectives !== undefined && !['auto', 'hardware', 'software'].includes(options.collectives)) {
      throw new FmplError(FmplCode.ERR_ARG, `collectives must be 'auto', 'hardware' or 'software', got ${describe(options.collectives)}`, { argument: 'collectives' });
    }
    if (options.hwBuffer !== undefined && (!Number.isInteger(options.hwBuffer) || options.hwBuffer < 1024)) {
      throw new FmplError(FmplCode.ERR_ARG, `hwBuffer must be an integer of at least 1024 bytes, got ${describe(options.hwBuffer)}`, { argument: 'hwBuffer' });
    }
    const k = key();
    contexts.set(k, 'ready');
    try {
      const job = await startJob();
      if (job.size > MAX_RANKS) throw new FmplError(FmplCode.ERR_ARG, `FMPL supports at most ${MAX_RANKS} ranks, the job has ${job.size}`);
      const engine = new FmplEngine(job.runtime, job.connections, count);
      await engine.start();
      return new Fmpl(job, engine, options);
    } catch (error) {
      contexts.delete(k);
      throw error;
    }
  }

  get rank(): number {
    return this.#job.rank;
  }

  get size(): number {
    return this.#job.size;
  }

  get provider(): string {
    return this.#job.ia.provider.name;
  }

  /** The job under this library (its IA, runtime and connections), for tools that look below FMPL (as `Mpi#job`). */
  get job(): DaplJob {
    return this.#job;
  }

  /** Seconds on the rank's clock (virtual under the simulator). */
  wtime(): number {
    return this.#job.runtime.clock.now();
  }

  /** Where this rank's last blocking send and receive spent their time, seconds (the FMPL paper (Tatebe et al.) table 1's breakdown). */
  get breakdown(): Readonly<FmplEngine['breakdown']> {
    return { ...this.#engine.breakdown };
  }

  /** Which paths sends took (zero copy, one copy, spooled copies sent) and collectives took. */
  counters(): Readonly<PathCounters & Fmpl['collectiveCounters']> {
    return { ...this.#engine.counters, ...this.collectiveCounters };
  }

  // ---- point to point -----------------------------------------------------------------------

  /** fmpl_send: returns when `buf` may be reused (sent zero-copy, or copied into the send buffer after the timeout). */
  async send(buf: ArrayBufferView, dst: number, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<void> {
    const { bytes, peer, slot } = this.#args(buf, dst, 'dst', mai, comm, false);
    await this.#engine.send(bytes, peer, slot);
  }

  /** fmpl_recv: returns when the message is in `buf`; `mai` may be FMPL_ANY_TAG. */
  async recv(buf: ArrayBufferView, src: number, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<Received> {
    const { bytes, peer, slot } = this.#args(buf, src, 'src', mai, comm, true);
    await this.#engine.oneCopy.progress();
    const got = await this.#engine.recv(bytes, peer, slot);
    return { ...got, source: comm.members.indexOf(got.source) };
  }

  /** fmpl_issend: start a send; `issendWait(dst, mai)` ends it. */
  issend(buf: ArrayBufferView, dst: number, mai: number, comm: FmplComm = this.COMM_WORLD): void {
    const { bytes, peer, slot } = this.#args(buf, dst, 'dst', mai, comm, false);
    this.#start(`send ${peer} ${slot}`, this.#engine.send(bytes, peer, slot));
  }

  /** fmpl_irecv: post a receive in advance (its header goes to the sender at once); `irecvWait(src, mai)` ends it. */
  irecv(buf: ArrayBufferView, src: number, mai: number, comm: FmplComm = this.COMM_WORLD): void {
    const { bytes, peer, slot } = this.#args(buf, src, 'src', mai, comm, true);
    this.#start(`recv ${peer} ${slot}`, this.#engine.recv(bytes, peer, slot));
  }

  /**
   * fmpl_issend_wait: resolves once the send `issend(…, dst, mai)` started has completed.
   * @throws FmplError ERR_ARG when no such send is pending.
   */
  async issendWait(dst: number, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<void> {
    await this.#finish(`send ${this.#peer(dst, 'dst', comm)} ${this.#slot(mai, false)}`);
  }

  /**
   * fmpl_irecv_wait: resolves to what the receive `irecv(…, src, mai)` posted got.
   * @throws FmplError ERR_ARG when no such receive is pending.
   */
  async irecvWait(src: number, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<Received> {
    const got = (await this.#finish(`recv ${this.#peer(src, 'src', comm)} ${this.#slot(mai, true)}`)) as Received;
    return { ...got, source: comm.members.indexOf(got.source) };
  }

  /** fmpl_send_any: to a receiver that takes it with `recvAny` (a separate domain: `recv` never sees it). */
  async sendAny(buf: ArrayBufferView, dst: number, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<void> {
    const { bytes, peer, slot } = this.#args(buf, dst, 'dst', mai, comm, false);
    await this.#engine.oneCopy.progress();
    await this.#engine.sendAny(bytes, peer, slot);
  }

  /** fmpl_recv_any: the first `sendAny` with `mai` from any rank; its source is in the result. */
  async recvAny(buf: ArrayBufferView, mai: number, comm: FmplComm = this.COMM_WORLD): Promise<Received> {
    this.#check();
    const bytes = viewBytes(buf);
    const slot = this.#slot(mai, false);
    this.#comm(comm);
    await this.#engine.oneCopy.progress();
    const got = await this.#engine.recvAny(bytes, slot);
    return { ...got, source: comm.members.indexOf(got.source) };
  }

  /** fmpl_sendbuf_set: a send buffer of `bytes` and the time (ms, on the rank's clock) a send waits for its header before copying into it (0: at once). */
  sendbufSet(bytes: number, timeoutMs: number): void {
    this.#check();
    if (!Number.isInteger(bytes) || bytes < 0 || bytes > 2 ** 31 - 1) throw new FmplError(FmplCode.ERR_ARG, `bytes must be an integer in [0, 2^31 - 1], got ${describe(bytes)}`, { argument: 'bytes' });
    if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0) || !Number.isFinite(timeoutMs)) throw new FmplError(FmplCode.ERR_ARG, `timeoutMs must be a finite number ≥ 0, got ${describe(timeoutMs)}`, { argument: 'timeoutMs' });
    this.#engine.oneCopy.setSendBuffer(bytes, timeoutMs * 1e6);
  }

  /** fmpl_sendbuf_check: send the spooled messages whose receives are posted; how many went, how many wait. */
  async sendbufCheck(): Promise<{ nsend: number; nspool: number }> {
    this.#check();
    return this.#engine.oneCopy.flush();
  }

  // ---- communicators and collectives --------------------------------------------------------

  /** fmpl_comm_create: the ranks of `comm` (default world) that pass key 1 form a new communicator; key 0 gets null. Collective. */
  async commCreate(key: number, comm: FmplComm = this.COMM_WORLD): Promise<FmplComm | null> {
    this.#check();
    this.#comm(comm);
    if (key !== 0 && key !== 1) throw new FmplError(FmplCode.ERR_ARG, `key must be 1 (join) or 0 (do not), got ${describe(key)}`, { argument: 'key' });
    const keys = new Int32Array(comm.size);
    keys[comm.rank] = key;
    // Gather to rank 0 of comm, then broadcast.
    const slot = this.#engine.layout.internal(SLOT_COMM);
    if (comm.rank === 0) {
      const one = new Int32Array(1);
      for (let r = 1; r < comm.size; r++) {
        await this.#engine.recv(new Uint8Array(one.buffer), comm.members[r], slot);
        keys[r] = one[0];
      }
    } else await this.#engine.send(new Uint8Array(Int32Array.of(key).buffer), comm.members[0], slot);
    await this.#bcast(new Uint8Array(keys.buffer), 0, comm);
    if (key === 0) return null;
    const members = comm.members.filter((_, r) => keys[r] === 1);
    return new FmplComm(members, members.indexOf(this.rank));
  }

  /** fmpl_barrier: the hardware barrier when usable, else a binary tree of 0-byte messages. */
  async barrier(comm: FmplComm = this.COMM_WORLD): Promise<void> {
    this.#check();
    this.#comm(comm);
    await this.#engine.oneCopy.progress();
    const hw = this.#hardware(comm);
    if (hw !== undefined) {
      this.collectiveCounters.hwBarriers++;
      return hw.barrier(comm.members);
    }
    this.collectiveCounters.swBarriers++;
    const none = new Uint8Array(0);
    const slot = this.#engine.layout.internal(SLOT_BARRIER);
    const { parent, children } = tree(comm.rank, comm.size, 0);
    for (const c of children) await this.#engine.recv(none, comm.members[c], slot);
    if (parent !== undefined) {
      await this.#engine.send(none, comm.members[parent], slot);
      await this.#engine.recv(none, comm.members[parent], slot);
    }
    for (const c of children) await this.#engine.send(none, comm.members[c], slot);
  }

  /** fmpl_bcast: `root`'s `buf` to every member. */
  async bcast(buf: ArrayBufferView, root: number, comm: FmplComm = this.COMM_WORLD): Promise<void> {
    this.#check();
    this.#comm(comm);
    const r = this.#peerIndex(root, 'root', comm);
    await this.#engine.oneCopy.progress();
    await this.#bcast(viewBytes(buf), r, comm);
  }

  async #bcast(bytes: Uint8Array, root: number, comm: FmplComm): Promise<void> {
    const hw = this.#hardware(comm);
    if (hw !== undefined && bytes.length > 0) {
      this.collectiveCounters.hwBcasts++;
      return this.#hwBcast(hw, bytes, root, comm);
    }
    return this.#swBcast(bytes, root, comm);
  }

  async #swBcast(bytes: Uint8Array, root: number, comm: FmplComm): Promise<void> {
    this.collectiveCounters.swBcasts++;
    const slot = this.#engine.layout.internal(SLOT_BCAST);
    const { parent, children } = tree(comm.rank, comm.size, root);
    if (parent !== undefined) await this.#engine.recv(bytes, comm.members[parent], slot);
    await Promise.all(children.map((c) => this.#engine.send(bytes, comm.members[c], slot)));
  }

  /**
   * Hardware broadcast (Tatebe et al. §4.2): through two registered library buffers at the same offset
   * on every node, used alternately so that copying one piece overlaps broadcasting the next.
   */
  async #hwBcast(hw: HwCollectives, bytes: Uint8Array, root: number, comm: FmplComm): Promise<void> {
    let buffers = this.#hwBuffers.get(comm);
    if (buffers === undefined) this.#hwBuffers.set(comm, (buffers = [0, 1].map(() => this.#job.connections.pz.registerLmr(new Uint8Array(this.#hwBytes), MemAccess.LOCAL)) as [Lmr, Lmr]));
    const clock = this.#job.runtime.clock;
    const me = comm.rank === root;
    const rootWorld = comm.members[root];
    let copyOut: (() => void) | undefined;
    for (let done = 0, k = 0; done < bytes.length; k++) {
      const n = Math.min(this.#hwBytes, bytes.length - done);
      const buffer = buffers[k % 2];
      if (me) {
        buffer.bytes.set(bytes.subarray(done, done + n));
        clock.chargeCopy(n);
      }
      const going = hw.broadcast(comm.members, rootWorld, buffer, 0, n);
      // While this piece is on the crossbar, the previous one is copied out of the other buffer.
      copyOut?.();
      try {
        await going;
      } catch (error) {
        // Refused because another broadcast holds the hardware (one at a time on the SR8000's
        // serialized crossbar): every member hears the same, so all send the rest in software.
        if (!(error instanceof DatError) || error.status !== DatStatus.INVALID_STATE) {
          throw new FmplError(FmplCode.ERR_TRANSPORT, `the hardware broadcast on ranks [${comm.members.join(',')}] failed: ${String(error)}`, { cause: error });
        }
        if (this.#mode === 'hardware') throw new FmplError(FmplCode.ERR_COMM, `collectives 'hardware' but the hardware refused the broadcast on ranks [${comm.members.join(',')}]: ${error.message}`, { argument: 'comm', cause: error });
        if (done === 0) this.collectiveCounters.hwBcasts--; // none of it went by hardware
        return this.#swBcast(bytes.subarray(done), root, comm);
      }
      const at = done;
      copyOut = me
        ? undefined
        : () => {
            bytes.set(buffer.bytes.subarray(0, n), at);
            clock.chargeCopy(n);
          };
      done += n;
    }
    copyOut?.();
  }

  /** fmpl_reduce: `buf` reduced with `func` over the members, left at `root`; `work` holds incoming data (as long as `buf`). */
  async reduce(buf: Numbers, count: number, func: FmplReduceFunction, root: number, comm: FmplComm = this.COMM_WORLD, work?: Numbers): Promise<void> {
    this.#check();
    this.#comm(comm);
    const r = this.#peerIndex(root, 'root', comm);
    this.#reduceArgs(buf, count, func, work);
    await this.#engine.oneCopy.progress();
    await this.#reduce(buf, count, func, r, comm, work ?? (new (buf.constructor as { new (n: number): Numbers })(count) as Numbers));
  }

  /** fmpl_allreduce: `buf` reduced with `func` over the members, left everywhere. */
  async allreduce(buf: Numbers, count: number, func: FmplReduceFunction, comm: FmplComm = this.COMM_WORLD, work?: Numbers): Promise<void> {
    this.#check();
    this.#comm(comm);
    this.#reduceArgs(buf, count, func, work);
    await this.#engine.oneCopy.progress();
    await this.#reduce(buf, count, func, 0, comm, work ?? (new (buf.constructor as { new (n: number): Numbers })(count) as Numbers));
    await this.#bcast(new Uint8Array(buf.buffer, buf.byteOffset, count * buf.BYTES_PER_ELEMENT), 0, comm);
  }

  /** Binary tree towards `root`: each node combines its children's vectors into its own. */
  async #reduce(buf: Numbers, count: number, func: FmplReduceFunction, root: number, comm: FmplComm, work: Numbers): Promise<void> {
    const slot = this.#engine.layout.internal(SLOT_REDUCE);
    const bytes = (a: Numbers) => new Uint8Array(a.buffer, a.byteOffset, count * a.BYTES_PER_ELEMENT);
    const { parent, children } = tree(comm.rank, comm.size, root);
    for (const c of children) {
      await this.#engine.recv(bytes(work), comm.members[c], slot);
      func(buf, work, count);
      this.#job.runtime.clock.chargeCopy(count * buf.BYTES_PER_ELEMENT);
    }
    if (parent !== undefined) await this.#engine.send(bytes(buf), comm.members[parent], slot);
  }

  /** fmpl_finalize: sends still in the send buffer go out first (their receivers must post). */
  async finalize(): Promise<void> {
    this.#check();
    this.#finalized = true;
    contexts.set(key(), 'finalized');
    await this.#engine.oneCopy.drain();
    await Promise.allSettled(this.#pending.values());
    await this.#job.finish();
    this.#engine.close();
    // A one-copy send that failed after its call returned, not yet reported by sendbufCheck.
    const failed = this.#engine.oneCopy.takeError();
    if (failed !== undefined) throw failed;
  }

  // ---- checks -------------------------------------------------------------------------------

  #check(): void {
    if (this.#finalized) throw new FmplError(FmplCode.ERR_FINALIZED, 'FMPL has been finalized in this rank: no FMPL call may follow finalize()');
  }

  #comm(comm: unknown): asserts comm is FmplComm {
    if (!(comm instanceof FmplComm)) throw new FmplError(FmplCode.ERR_COMM, `comm must be COMM_WORLD or a communicator from commCreate, got ${describe(comm)}`, { argument: 'comm' });
    if (comm.rank < 0) throw new FmplError(FmplCode.ERR_COMM, 'this rank is not a member of comm', { argument: 'comm' });
  }

  #peerIndex(rank: unknown, argument: string, comm: FmplComm): number {
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= comm.size) {
      throw new FmplError(FmplCode.ERR_RANK, `${argument} must be a rank of the communicator in [0, ${comm.size - 1}], got ${describe(rank)}`, { argument });
    }
    return rank;
  }

  #peer(rank: unknown, argument: string, comm: FmplComm): number {
    this.#comm(comm);
    return comm.members[this.#peerIndex(rank, argument, comm)];
  }

  #slot(mai: unknown, allowAny: boolean): number {
    const layout = this.#engine.layout;
    if (allowAny && mai === FMPL_ANY_TAG) return layout.anySlot;
    if (typeof mai !== 'number' || !Number.isInteger(mai) || mai < 0 || mai >= layout.count) {
      throw new FmplError(FmplCode.ERR_MAI, `mai must be a matching-area index in [0, ${layout.count - 1}]${allowAny ? ' or FMPL_ANY_TAG' : ''}, got ${describe(mai)}`, { argument: 'mai' });
    }
    return mai;
  }

  #args(buf: unknown, rank: unknown, argument: string, mai: unknown, comm: FmplComm, allowAny: boolean): { bytes: Uint8Array; peer: number; slot: number } {
    this.#check();
    const bytes = viewBytes(buf);
    const peer = this.#peer(rank, argument, comm);
    return { bytes, peer, slot: this.#slot(mai, allowAny) };
  }

  #reduceArgs(buf: unknown, count: unknown, func: unknown, work: unknown): void {
    if (!(buf instanceof Float64Array) && !(buf instanceof Int32Array)) throw new FmplError(FmplCode.ERR_ARG, `buf must be a Float64Array or Int32Array, got ${describe(buf)}`, { argument: 'buf' });
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > buf.length) {
      throw new FmplError(FmplCode.ERR_ARG, `count must be an integer in [0, ${buf.length}], got ${describe(count)}`, { argument: 'count' });
    }
    if (typeof func !== 'function') throw new FmplError(FmplCode.ERR_ARG, `func must be a function (acc, incoming, count), got ${describe(func)}`, { argument: 'func' });
    if (work !== undefined && (work === null || (work as Numbers).constructor !== buf.constructor || (work as Numbers).length < count)) {
      throw new FmplError(FmplCode.ERR_ARG, `work must be a ${buf.constructor.name} of at least ${count} elements, got ${describe(work)}`, { argument: 'work' });
    }
  }

  /** Whether the hardware can serve each communicator (its members never change). */
  readonly #usable = new WeakMap<FmplComm, boolean>();

  #hardware(comm: FmplComm): HwCollectives | undefined {
    if (this.#mode === 'software') return undefined;
    const ext = this.#job.ia.extension('hw-collectives');
    let usable = this.#usable.get(comm);
    if (usable === undefined) this.#usable.set(comm, (usable = ext !== undefined && ext.usable(comm.members)));
    if (this.#mode === 'hardware' && !usable) throw new FmplError(FmplCode.ERR_COMM, `collectives 'hardware' but the hardware cannot serve ranks [${comm.members.join(',')}] on ${this.provider}`, { argument: 'comm' });
    return usable ? ext : undefined;
  }

  #start(key: string, operation: Promise<unknown>): void {
    if (this.#pending.has(key)) throw new FmplError(FmplCode.ERR_MAI_IN_USE, `a nonblocking ${key.split(' ')[0]} on this rank and matching area is already pending`, { argument: 'mai' });
    operation.catch(() => undefined);
    this.#pending.set(key, operation);
  }

  async #finish(key: string): Promise<unknown> {
    this.#check();
    const operation = this.#pending.get(key);
    if (operation === undefined) throw new FmplError(FmplCode.ERR_ARG, `no nonblocking ${key.split(' ')[0]} is pending for that rank and matching area`, { argument: 'mai' });
    try {
      return await operation;
    } finally {
      this.#pending.delete(key);
    }
  }
}

/** Parent and children of `rank` in the binary tree rooted at `root` (relative ranks, heap order). */
function tree(rank: number, size: number, root: number): { parent: number | undefined; children: number[] } {
  const rel = (rank - root + size) % size;
  const abs = (r: number) => (r + root) % size;
  const children = [2 * rel + 1, 2 * rel + 2].filter((c) => c < size).map(abs);
  return { parent: rel === 0 ? undefined : abs(Math.floor((rel - 1) / 2)), children };
}

function viewBytes(buf: unknown): Uint8Array {
  if (!ArrayBuffer.isView(buf)) throw new FmplError(FmplCode.ERR_ARG, `buf must be a TypedArray, Buffer or DataView, got ${describe(buf)}`, { argument: 'buf' });
  return buf instanceof Uint8Array ? buf : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Predefined reduction: the element-wise sum. */
export const FMPL_SUM: FmplReduceFunction = (acc, incoming, count) => {
  for (let i = 0; i < count; i++) acc[i] += incoming[i];
};
/** Predefined reduction: the element-wise maximum. */
export const FMPL_MAX: FmplReduceFunction = (acc, incoming, count) => {
  for (let i = 0; i < count; i++) if (incoming[i] > acc[i]) acc[i] = incoming[i];
};
/** Predefined reduction: the element-wise minimum. */
export const FMPL_MIN: FmplReduceFunction = (acc, incoming, count) => {
  for (let i = 0; i < count; i++) if (incoming[i] < acc[i]) acc[i] = incoming[i];
};
