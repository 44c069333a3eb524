import { DtoStatus, MemAccess, type Clock, type Connections, type DtoCompletionEvent, type EventDispatcher, type Lmr, type Rmr, type RmrTriplet, type Runtime } from '@dapl/core';
import { FmplCode, FmplError } from './errors.js';
import { AreaLayout, FLAG_BYTES, HEADER_BYTES } from './layout.js';
import { PeerAccess } from './peer-access.js';
import { OneCopySends } from './one-copy-sends.js';
import { Signal, decodeSignal, encodeSignal } from './signals.js';

/**
 * Every write FMPL posts may complete once its bytes have left (fmpl_send ends "when the send buffer
 * can be safely modified", Tatebe et al. §2.3): where the IA can tell (tcp), a send no longer waits a
 * round trip for the target's acknowledgement, and an endpoint's writes complete in post order, so
 * one plain write would hold back those behind it.
 */
const SIGNAL_WRITE = { suppressCompletion: true, localCompletion: true } as const;

/** Something waiting for one signal. */
interface Waiter {
  resolve(): void;
  reject(error: FmplError): void;
}

/** What a completed receive learned. */
export interface Received {
  readonly source: number;
  /** The matching-area index the message was sent with (useful with FMPL_ANY_TAG). */
  readonly mai: number;
  /** Bytes received. */
  readonly size: number;
}

/** Counts of which path sends took. */
export interface PathCounters {
  zeroCopySends: number;
  oneCopySends: number;
  spooledSent: number;
}

/**
 * FMPL's point-to-point engine on DAT (Tatebe et al. §2.1, §4.1). A receive writes its buffer's header
 * (size, RMR) into its sender's matching-area slot with an RDMA write whose immediate is the
 * doorbell; a send finds the header in its own matching area and writes the body straight into
 * the receive buffer (zero copy, one round trip), the size into the receiver's completion-flag
 * slot just before. A send that waits longer than the send-buffer timeout copies the body into
 * the send buffer and returns (one copy); the copy goes out at the next FMPL call once the header
 * is there. No queue is searched: every state is indexed by (peer, slot).
 */
export class FmplEngine {
  readonly layout: AreaLayout;
  readonly counters: PathCounters = { zeroCopySends: 0, oneCopySends: 0, spooledSent: 0 };
  /** Where the last blocking send and receive spent their time, seconds (the FMPL paper (Tatebe et al.) table 1). */
  readonly breakdown = { sendWaitHeader: 0, sendBody: 0, recvPostHeader: 0, recvWaitBody: 0 };
  readonly #rank: number;
  readonly #connections: Connections;
  readonly #clock: Clock;
  readonly #runtime: Runtime;
  readonly #area: Lmr;
  readonly #areaView: DataView;
  readonly #areaRmr: Rmr;
  readonly #staging: Lmr;
  readonly #stagingView: DataView;
  readonly #peers: PeerAccess;
  /** Per (peer, slot): a header has arrived here from that receiver. */
  readonly #headerIn: Uint8Array;
  readonly #headerWaiters: (Waiter | undefined)[];
  /** Per (peer, slot): this rank's receive or send in progress (the in-use check). */
  readonly #receiving: (Waiter | undefined)[];
  readonly #sending: Uint8Array;
  /** Per (peer, slot): a send_any header from that sender, and recv_any waiters per slot. */
  readonly #anyArrivals: number[][];
  readonly #anyWaiters: (Waiter | undefined)[];
  readonly #anyDone: (Waiter | undefined)[];
  /** Per slot: a recv_any is in progress (from its call to its return). */
  readonly #anyReceiving: Uint8Array;
  /** Sends copied into the send buffer after their timeout, out when their header comes. */
  readonly oneCopy: OneCopySends;
  #closed = false;

  constructor(runtime: Runtime, connections: Connections, count: number) {
    this.#rank = runtime.rank;
    this.#runtime = runtime;
    this.#clock = runtime.clock;
    this.#connections = connections;
    const layout = (this.layout = new AreaLayout(runtime.size, count));
    const pz = connections.pz;
    this.#area = pz.registerLmr(new Uint8Array(layout.bytes), MemAccess.ALL);
    this.#areaView = new DataView(this.#area.bytes.buffer, this.#area.bytes.byteOffset, layout.bytes);
    this.#areaRmr = pz.createRmr();
    this.#staging = pz.registerLmr(new Uint8Array(layout.bytes), MemAccess.ALL);
    this.#peers = new PeerAccess(connections, this.#staging);
    this.#stagingView = new DataView(this.#staging.bytes.buffer, this.#staging.bytes.byteOffset, layout.bytes);
    const cells = runtime.size * layout.slots;
    this.#headerIn = new Uint8Array(cells);
    this.#headerWaiters = new Array(cells);
    this.#receiving = new Array(cells);
    this.#sending = new Uint8Array(cells);
    this.#anyArrivals = Array.from({ length: layout.slots }, () => []);
    this.#anyWaiters = new Array(layout.slots);
    this.#anyDone = new Array(cells);
    this.#anyReceiving = new Uint8Array(layout.slots);
    const host = {
      writeBody: (bytes: Uint8Array, lmr: Lmr, offset: number, dst: number, slot: number) => this.#writeBody(bytes, lmr, offset, dst, slot),
      exactHeader: this.#exactHeaderFn,
      headerReady: this.#headerReadyFn,
      wakeSendsTo: (dst: number, slot: number) => this.#wakeSendsTo(dst, slot),
      waitHeader: (what: string, dst: number, slot: number) => this.#declared(what, this.#waitHeader(dst, slot, this.#headerReadyFn)),
      counters: this.counters,
    };
    this.oneCopy = new OneCopySends(host, pz, this.#clock, layout, runtime.size);
  }

  /** Expose the areas and learn every peer's (collective). */
  async start(): Promise<void> {
    const t = this.#areaRmr.bind(this.#area, 0, this.layout.bytes, MemAccess.REMOTE_WRITE);
    const runtime = this.#runtime;
    await runtime.put(`fmpl-area-${this.#rank}`, `${t.rmrContext.toString(16)}.${t.targetOffset}.${t.length}.${this.layout.count}`);
    await runtime.fence();
    for (let r = 0; r < runtime.size; r++) {
      const [context, offset, length, count] = (await runtime.get(`fmpl-area-${r}`)).split('.');
      if (Number(count) !== this.layout.count) {
        throw new FmplError(FmplCode.ERR_ARG, `every rank must pass the same matchingAreas to init: rank ${r} passed ${count}, this rank ${this.layout.count}`, { argument: 'matchingAreas' });
      }
      this.#peers.setArea(r, { rmrContext: BigInt(`0x${context}`), targetOffset: Number(offset), length: Number(length) });
    }
    this.#connections.evds.recv.setNotify(this.#onSignals);
    this.#connections.evds.request.setNotify(this.#onRequests);
  }

  // ---- sender-side matching domain ----------------------------------------------------------

  /** Zero copy when the header is (or comes) in time; one copy into the send buffer after the timeout. */
  async send(bytes: Uint8Array, dst: number, slot: number): Promise<void> {
    const cell = dst * this.layout.slots + slot;
    if (this.#sending[cell] !== 0) throw new FmplError(FmplCode.ERR_MAI_IN_USE, `a send to rank ${dst} on matching area ${slot} is already in progress`, { argument: 'mai' });
    this.#sending[cell] = 1;
    const t0 = this.#clock.now();
    let cancelTimer: (() => void) | undefined;
    try {
      await this.oneCopy.progress();
      // Wait for the header (an ANY_TAG header wakes every send to that rank: the first one takes it).
      const timeoutNs = this.oneCopy.timeoutNs;
      // A timeout of 0 copies at once: a timer, even of 0, would cost a wall clock's 1 ms tick per send.
      if (timeoutNs === 0 && !this.#headerFor(dst, slot)) return this.oneCopy.copy(bytes, dst, slot);
      const timer = timeoutNs === undefined || this.#headerFor(dst, slot) ? undefined : this.#timeout(timeoutNs);
      cancelTimer = timer?.cancel;
      const timedOut = timer?.promise;
      while (!this.#headerFor(dst, slot)) {
        const arrived = this.#waitHeader(dst, slot, this.#headerForFn);
        const outcome = await this.#declared(`FMPL send to rank ${dst} on matching area ${slot}`, timedOut === undefined ? arrived : Promise.race([arrived, timedOut]));
        if (outcome === 'timeout' && !this.#headerFor(dst, slot)) {
          this.#headerWaiters[cell] = undefined;
          return this.oneCopy.copy(bytes, dst, slot);
        }
      }
      this.counters.zeroCopySends++;
      const t1 = this.#clock.now();
      this.breakdown.sendWaitHeader = t1 - t0;
      if (bytes.length === 0) await this.#writeBody(bytes, this.#staging, bytes.byteOffset, dst, slot);
      else await this.#peers.pinned(bytes, (lmr) => this.#writeBody(bytes, lmr, bytes.byteOffset, dst, slot));
      this.breakdown.sendBody = this.#clock.now() - t1;
    } finally {
      cancelTimer?.();
      this.#sending[cell] = 0;
    }
  }

  /**
   * The one-copy timeout of a send, cancelled once the send no longer waits: a wall-clock timer
   * holds the process while it runs, so one left behind would keep a finished program alive.
   */
  #timeout(ns: number): { promise: Promise<'timeout'>; cancel: (() => void) | undefined } {
    const after = this.#clock.after;
    if (after === undefined) return { promise: this.#clock.delay(ns).then(() => 'timeout' as const), cancel: undefined };
    let cancel: (() => void) | undefined;
    const promise = new Promise<'timeout'>((resolve) => (cancel = after.call(this.#clock, ns, () => resolve('timeout'))));
    return { promise, cancel };
  }

  /** Post the receive's header to `src` and wait for the body. */
  async recv(bytes: Uint8Array, src: number, slot: number): Promise<Received> {
    const cell = src * this.layout.slots + slot;
    if (this.#receiving[cell] !== undefined) throw new FmplError(FmplCode.ERR_MAI_IN_USE, `a receive from rank ${src} on matching area ${slot === this.layout.anySlot ? 'FMPL_ANY_TAG' : slot} is already in progress`, { argument: 'mai' });
    const t0 = this.#clock.now();
    const { rmr, window } = this.#peers.expose(bytes, MemAccess.REMOTE_WRITE);
    try {
      let filled = false;
      const body = new Promise<void>((resolve, reject) => (this.#receiving[cell] = { resolve, reject, full: () => (filled = true) } as Waiter));
      // The header: size and window, into the sender's matching area at (me, slot).
      await this.#postHeader(src, bytes.length, window, Signal.HEADER, slot);
      const t1 = this.#clock.now();
      this.breakdown.recvPostHeader = t1 - t0;
      await this.#declared(`FMPL recv from rank ${src} on matching area ${slot}`, body);
      this.breakdown.recvWaitBody = this.#clock.now() - t1;
      if (filled) return { source: src, size: bytes.length, mai: slot };
      const flag = this.layout.flag(src, slot);
      return { source: src, size: this.#areaView.getUint32(flag, true), mai: this.#areaView.getUint32(flag + 4, true) };
    } finally {
      this.#receiving[cell] = undefined;
      this.#peers.release(rmr);
    }
  }

  /** The header from `dst` for `slot` (or its ANY_TAG one) is here: write the body (and its size first). */
  async #writeBody(bytes: Uint8Array, lmr: Lmr, offset: number, dst: number, slot: number): Promise<void> {
    const slots = this.layout.slots;
    const exact = this.#headerIn[dst * slots + slot] !== 0;
    const used = exact ? slot : this.layout.anySlot;
    this.#headerIn[dst * slots + used] = 0;
    const header = this.layout.header(dst, used);
    const room = this.#areaView.getUint32(header, true);
    const target = { rmrContext: this.#areaView.getBigUint64(header + 8, true), targetOffset: this.#areaView.getUint32(header + 16, true), length: room };
    const ep = await this.#peers.endpoint(dst);
    if (bytes.length > room) {
      ep.postRdmaWrite([], null, this.#peers.remote(dst, this.layout.flag(this.#rank, used), 0), { ...SIGNAL_WRITE, immediate: encodeSignal(Signal.TRUNCATED, this.#rank, used) });
      throw new FmplError(FmplCode.ERR_TRUNCATE, `a message of ${bytes.length} bytes to rank ${dst} on matching area ${slot} does not fit its receive buffer of ${room} bytes; nothing was written`, { argument: 'buf' });
    }
    // A message that fills the buffer on the posted index needs no flag; otherwise size and index go
    // into the receiver's completion-flag slot first (RDMA writes on one endpoint land in order).
    const full = bytes.length === room && used === slot;
    if (!full) {
      // Staged at the receiver's own place (not ours): sends to two receivers on one index in one turn must not share bytes.
      const staged = this.layout.flag(dst, used);
      this.#stagingView.setUint32(staged, bytes.length, true);
      this.#stagingView.setUint32(staged + 4, slot, true);
      ep.postRdmaWrite([{ lmr: this.#staging, offset: staged, length: FLAG_BYTES }], null, this.#peers.remote(dst, this.layout.flag(this.#rank, used), FLAG_BYTES), SIGNAL_WRITE);
    }
    const written = new Promise<void>((resolve, reject) => {
      ep.postRdmaWrite(bytes.length === 0 ? [] : [{ lmr, offset, length: bytes.length }], { resolve, reject } satisfies Waiter, target, { immediate: encodeSignal(full ? Signal.BODY_FULL : Signal.BODY, this.#rank, used), localCompletion: true });
    });
    await written;
  }

  // ---- the any-source domain (receiver-side matching) ---------------------------------------

  async sendAny(bytes: Uint8Array, dst: number, slot: number): Promise<void> {
    const cell = dst * this.layout.slots + slot;
    if (this.#anyDone[cell] !== undefined) throw new FmplError(FmplCode.ERR_MAI_IN_USE, `a send_any to rank ${dst} on matching area ${slot} is already in progress`, { argument: 'mai' });
    const { rmr, window } = this.#peers.expose(bytes, MemAccess.REMOTE_READ);
    try {
      const done = new Promise<void>((resolve, reject) => (this.#anyDone[cell] = { resolve, reject }));
      await this.#postHeader(dst, bytes.length, window, Signal.ANY_HEADER, slot);
      await this.#declared(`FMPL send_any to rank ${dst} on matching area ${slot}`, done);
    } finally {
      this.#anyDone[cell] = undefined;
      this.#peers.release(rmr);
    }
  }

  /** The first send_any for `slot` from anyone, read straight into `bytes`. */
  async recvAny(bytes: Uint8Array, slot: number): Promise<Received> {
    if (this.#anyReceiving[slot] !== 0) throw new FmplError(FmplCode.ERR_MAI_IN_USE, `a recv_any on matching area ${slot} is already in progress`, { argument: 'mai' });
    this.#anyReceiving[slot] = 1;
    try {
      return await this.#recvAny(bytes, slot);
    } finally {
      this.#anyReceiving[slot] = 0;
    }
  }

  async #recvAny(bytes: Uint8Array, slot: number): Promise<Received> {
    if (this.#anyArrivals[slot].length === 0) {
      await this.#declared(`FMPL recv_any on matching area ${slot}`, new Promise<void>((resolve, reject) => (this.#anyWaiters[slot] = { resolve, reject })));
      this.#anyWaiters[slot] = undefined;
    }
    const src = this.#anyArrivals[slot].shift()!;
    const at = this.layout.anyHeader(src, slot);
    const size = this.#areaView.getUint32(at, true);
    const remote = { rmrContext: this.#areaView.getBigUint64(at + 8, true), targetOffset: this.#areaView.getUint32(at + 16, true), length: size };
    const ep = await this.#peers.endpoint(src);
    const done = (signal: Signal) => ep.postRdmaWrite([], null, this.#peers.remote(src, this.layout.flag(this.#rank, slot), 0), { ...SIGNAL_WRITE, immediate: encodeSignal(signal, this.#rank, slot) });
    if (size > bytes.length) {
      done(Signal.ANY_TRUNCATED);
      throw new FmplError(FmplCode.ERR_TRUNCATE, `a send_any of ${size} bytes from rank ${src} on matching area ${slot} does not fit the receive buffer of ${bytes.length} bytes; nothing was read`, { argument: 'buf' });
    }
    if (size > 0) await this.#peers.pinned(bytes, (lmr) => new Promise<void>((resolve, reject) => ep.postRdmaRead([{ lmr, offset: bytes.byteOffset, length: size }], { resolve, reject } satisfies Waiter, remote)));
    done(Signal.ANY_DONE);
    return { source: src, mai: slot, size };
  }

  // ---- events -------------------------------------------------------------------------------

  readonly #onSignals = (evd: EventDispatcher): void => {
    for (let e = evd.dequeue(); e !== undefined; e = evd.dequeue()) {
      if (e.type !== 'dto-completion' || e.op !== 'recv-immediate' || e.status !== DtoStatus.SUCCESS) continue;
      const { signal, rank, slot } = decodeSignal(e.immediate!);
      const cell = rank * this.layout.slots + slot;
      switch (signal) {
        case Signal.HEADER: {
          this.#headerIn[cell] = 1;
          // A spooled message waiting for this header goes now.
          if (this.oneCopy.spool.headerArrived(rank, slot)) void this.oneCopy.progress();
          this.#wake(this.#headerWaiters, cell);
          // A send waiting on a user index also wakes for an ANY_TAG header, and the reverse.
          if (slot === this.layout.anySlot) this.#wakeUserSends(rank);
          else this.#wake(this.#headerWaiters, rank * this.layout.slots + this.layout.anySlot);
          break;
        }
        case Signal.BODY:
          this.#wake(this.#receiving, cell);
          break;
        case Signal.BODY_FULL:
          (this.#receiving[cell] as (Waiter & { full?: () => void }) | undefined)?.full?.();
          this.#wake(this.#receiving, cell);
          break;
        case Signal.TRUNCATED:
          this.#fail(this.#receiving, cell, new FmplError(FmplCode.ERR_TRUNCATE, `the message from rank ${rank} does not fit the receive buffer; nothing was written`, { argument: 'buf' }));
          break;
        case Signal.ANY_HEADER:
          this.#anyArrivals[slot].push(rank);
          this.#wake(this.#anyWaiters, slot);
          break;
        case Signal.ANY_DONE:
          this.#wake(this.#anyDone, cell);
          break;
        case Signal.ANY_TRUNCATED:
          this.#fail(this.#anyDone, cell, new FmplError(FmplCode.ERR_TRUNCATE, `the send_any to rank ${rank} on matching area ${slot} does not fit the receive buffer of its recv_any; nothing was read`, { argument: 'buf' }));
          break;
      }
    }
  };

  readonly #onRequests = (evd: EventDispatcher): void => {
    for (let e = evd.dequeue(); e !== undefined; e = evd.dequeue()) {
      if (e.type !== 'dto-completion') continue;
      const waiter = (e as DtoCompletionEvent).cookie as Waiter | null;
      if (waiter === null || typeof waiter !== 'object') continue;
      if (e.status === DtoStatus.SUCCESS) waiter.resolve();
      else waiter.reject(new FmplError(FmplCode.ERR_TRANSPORT, `${e.op} failed with ${e.status}`));
    }
  };

  /**
   * A spooled send to `dst` on `slot` has gone: a send waiting on that index looks again, and so do
   * those on every user index when a wildcard header is there and no longer held for spooled sends.
   */
  #wakeSendsTo(dst: number, slot: number): void {
    const base = dst * this.layout.slots;
    this.#wake(this.#headerWaiters, base + slot);
    if (slot >= this.layout.count || this.#headerIn[base + this.layout.anySlot] === 0 || this.oneCopy.spool.holdsUserSendTo(dst)) return;
    this.#wakeUserSends(dst);
  }

  /** Sends to `dst` waiting on any user index look again (a wildcard header may serve them). */
  #wakeUserSends(dst: number): void {
    const base = dst * this.layout.slots;
    for (let s = 0; s < this.layout.count; s++) this.#wake(this.#headerWaiters, base + s);
  }

  #wake(table: (Waiter | undefined)[], index: number): void {
    const w = table[index];
    if (w === undefined) return;
    table[index] = undefined;
    w.resolve();
  }

  #fail(table: (Waiter | undefined)[], index: number, error: FmplError): void {
    const w = table[index];
    if (w === undefined) return;
    table[index] = undefined;
    w.reject(error);
  }

  /**
   * A receiver's header for (dst, slot) is in our matching area, or its ANY_TAG one for a user
   * index: the library's own indexes (collectives) never match a user's wildcard receive.
   */
  #headerReady(dst: number, slot: number): boolean {
    const slots = this.layout.slots;
    return this.#headerIn[dst * slots + slot] !== 0 || (slot < this.layout.count && this.#headerIn[dst * slots + this.layout.anySlot] !== 0);
  }

  /**
   * A header a new send may take: its index's own, unless a spooled send on that index waits for
   * it, or the wildcard one, unless a spooled send to that rank on a user index is older.
   */
  #headerFor(dst: number, slot: number): boolean {
    const slots = this.layout.slots;
    if (this.#headerIn[dst * slots + slot] !== 0) return !this.oneCopy.spool.holds(dst, slot);
    return slot < this.layout.count && this.#headerIn[dst * slots + this.layout.anySlot] !== 0 && !this.oneCopy.spool.holdsUserSendTo(dst);
  }

  readonly #headerReadyFn = (dst: number, slot: number): boolean => this.#headerReady(dst, slot);
  readonly #headerForFn = (dst: number, slot: number): boolean => this.#headerFor(dst, slot);
  readonly #exactHeaderFn = (dst: number, slot: number): boolean => this.#headerIn[dst * this.layout.slots + slot] !== 0;

  /** Resolves once `has` a header for (dst, slot); a header's arrival wakes it to look again. */
  #waitHeader(dst: number, slot: number, has: (dst: number, slot: number) => boolean): Promise<'arrived'> {
    if (has(dst, slot)) return Promise.resolve('arrived');
    return new Promise((resolve, reject) => (this.#headerWaiters[dst * this.layout.slots + slot] = { resolve: () => resolve('arrived'), reject }));
  }

  #declared<T>(what: string, promise: Promise<T>): Promise<T> {
    return this.#runtime.declareWait === undefined ? promise : this.#runtime.declareWait(what, promise);
  }

  /**
   * Write a header (size and window) into `peer`'s area at our place for `slot` (the any-source
   * domain's for ANY_HEADER), ringing `signal`. It is staged at the place of our staging area that
   * only headers to `peer` for `slot` use: headers to two peers on one index posted in one turn
   * must not share their bytes.
   */
  async #postHeader(peer: number, size: number, window: RmrTriplet, signal: Signal.HEADER | Signal.ANY_HEADER, slot: number): Promise<void> {
    const place = (rank: number): number => (signal === Signal.HEADER ? this.layout.header(rank, slot) : this.layout.anyHeader(rank, slot));
    const staged = place(peer);
    const at = place(this.#rank);
    const view = this.#stagingView;
    view.setUint32(staged, size, true);
    view.setBigUint64(staged + 8, window.rmrContext, true);
    view.setUint32(staged + 16, window.targetOffset, true);
    const ep = await this.#peers.endpoint(peer);
    ep.postRdmaWrite([{ lmr: this.#staging, offset: staged, length: HEADER_BYTES }], null, this.#peers.remote(peer, at, HEADER_BYTES), { ...SIGNAL_WRITE, immediate: encodeSignal(signal, this.#rank, slot) });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#peers.close();
    for (const evd of [this.#connections.evds.recv, this.#connections.evds.request]) if (!evd.freed) evd.setNotify(undefined);
  }
}
