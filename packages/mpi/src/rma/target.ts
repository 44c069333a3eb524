import type { RecvRequest } from '../adi/requests.js';
import type { MpiError } from '../api/errors.js';
import { byteSpan, type BufferSpan } from '../adi/transfer.js';
import { Op } from '../coll/op.js';
import type { GatherProgram } from '../datatype/index.js';
import type { WindowSpan } from './apply.js';
import type { RmaChannel } from './channel.js';
import { DISPATCH_NS } from './costs.js';
import { LockManager, type LockMode } from './lock-manager.js';
import type { SyncReplies } from './replies.js';
import { ELEMENT_TYPES, HEADER_BYTES, OPS, RmaFlag, RmaKind, RmaTag, emptyRmaHeader, readProgram, readRmaHeader, touchedRange, type RmaHeader } from './wire.js';

/** One operation from an origin waiting its turn (accumulates and fetches apply in issue order). */
interface Queued {
  ready: boolean;
  run(): void;
}

/** A wait for an origin's operations to reach a count. */
interface CountWaiter {
  readonly count: number;
  readonly then: () => void;
}

/**
 * A window's target side (the LAPI one-sided patent's second set of counters and its header handler): every
 * control message is decoded here, its operation applied to the window or its data received
 * straight into it, and counted per origin; synchronisations wait for those counts. An operation
 * whose target span leaves the window, or whose header does not add up, is refused (the window is
 * not touched), counted, and reported to its origin by the next flush or unlock.
 */
export class RmaTarget {
  readonly #h: RmaHeader = emptyRmaHeader();
  /** Operations applied (or refused) per origin, cumulative. */
  readonly applied: Float64Array;
  readonly #refused: Uint32Array;
  readonly #queues: Queued[][];
  readonly #countWaiters: CountWaiter[][];
  readonly #lock: LockManager;
  readonly #held: (LockMode | undefined)[];
  /** PSCW: the counts of COMPLETE messages not yet waited for, per origin. */
  readonly #completes: number[][];
  readonly #completeWaiters: { readonly take: () => void; readonly reject: (error: MpiError) => void }[][];
  readonly #lost: (MpiError | undefined)[];

  constructor(
    private readonly channel: RmaChannel,
    private readonly replies: SyncReplies,
  ) {
    const n = channel.size;
    const lists = <T>(): T[][] => Array.from({ length: n }, () => []);
    this.applied = new Float64Array(n);
    this.#refused = new Uint32Array(n);
    this.#queues = lists();
    this.#countWaiters = lists();
    this.#held = new Array<LockMode | undefined>(n).fill(undefined);
    this.#completes = lists();
    this.#completeWaiters = lists();
    this.#lost = new Array<MpiError | undefined>(n).fill(undefined);
    this.#lock = new LockManager(channel.clock, (origin, mode) => {
      this.#held[origin] = mode;
      this.#answer(origin, RmaKind.LOCK_GRANTED, 0);
    });
  }

  /** The channel's handler: one control message from `source`. */
  readonly handle = (source: number, message: Uint8Array, length: number): void => {
    const h = this.#h;
    const view = new DataView(message.buffer, message.byteOffset, length);
    readRmaHeader(view, length, h);
    this.channel.clock.charge(DISPATCH_NS);
    switch (h.kind) {
      case RmaKind.PUT:
        return this.#put(source, h, view, message);
      case RmaKind.GET:
      case RmaKind.ACCUMULATE:
      case RmaKind.GET_ACCUMULATE:
      case RmaKind.COMPARE_AND_SWAP:
        return this.#queued(source, h, view, message);
      case RmaKind.LOCK:
        return this.#lock.request(source, h.value === 1 ? 'exclusive' : 'shared');
      case RmaKind.UNLOCK:
        return this.whenApplied(source, h.value, () => {
          const mode = this.#held[source];
          this.#held[source] = undefined;
          if (mode !== undefined) this.#lock.release(mode);
          this.#answer(source, RmaKind.UNLOCK_DONE, this.#takeRefused(source));
        });
      case RmaKind.FLUSH:
        return this.whenApplied(source, h.value, () => this.#answer(source, RmaKind.FLUSH_DONE, this.#takeRefused(source)));
      case RmaKind.COMPLETE:
        this.#completes[source].push(h.value);
        this.#completeWaiters[source].shift()?.take();
        return;
      case RmaKind.LOCK_GRANTED:
        return this.replies.onGrant(source);
      case RmaKind.UNLOCK_DONE:
        return this.replies.onUnlocked(source, h.value);
      case RmaKind.FLUSH_DONE:
        return this.replies.onFlushed(source, h.value);
      case RmaKind.POST:
        return this.replies.onPost(source);
      case RmaKind.CLOSE:
        return;
    }
  };

  /** Run `then` once `origin`'s applied operations reach `count`. */
  whenApplied(origin: number, count: number, then: () => void): void {
    if (this.applied[origin] >= count) return then();
    this.#countWaiters[origin].push({ count, then });
  }

  /** Settles once every origin's applied count reaches `expected[origin]` (fence). */
  appliedAll(expected: Float64Array): Promise<void> {
    return new Promise((resolve) => {
      let left = expected.length;
      const one = (): void => {
        if (--left === 0) resolve();
      };
      for (let o = 0; o < expected.length; o++) this.whenApplied(o, expected[o], one);
    });
  }

  /** PSCW wait: settles once `origin` has sent COMPLETE and its operations have been applied. */
  completed(origin: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const take = (): void => this.whenApplied(origin, this.#completes[origin].shift()!, resolve);
      const lost = this.#lost[origin];
      if (this.#completes[origin].length > 0) take();
      else if (lost !== undefined) reject(lost);
      else this.#completeWaiters[origin].push({ take, reject });
    });
  }

  /** `origin` was lost: a PSCW wait for it fails (its operations will never all arrive). */
  lostPeer(origin: number, error: MpiError): void {
    this.#lost[origin] ??= error;
    const waiting = this.#completeWaiters[origin];
    this.#completeWaiters[origin] = [];
    for (const w of waiting) w.reject(error);
  }

  /** PSCW test: whether every origin has completed (and then consumes their COMPLETEs). */
  allCompleted(origins: readonly number[]): boolean {
    for (const o of origins) {
      const counts = this.#completes[o];
      if (counts.length === 0 || this.applied[o] < counts[0]) return false;
    }
    for (const o of origins) this.#completes[o].shift();
    return true;
  }

  #counted(origin: number, refused: boolean): void {
    if (refused) this.#refused[origin]++;
    const applied = ++this.applied[origin];
    const waiters = this.#countWaiters[origin];
    if (waiters.length === 0) return;
    const due = waiters.filter((w) => w.count <= applied);
    if (due.length === 0) return;
    this.#countWaiters[origin] = waiters.filter((w) => w.count > applied);
    for (const w of due) w.then();
  }

  #takeRefused(origin: number): number {
    const n = this.#refused[origin];
    this.#refused[origin] = 0;
    return n;
  }

  #answer(origin: number, kind: RmaKind, value: number): void {
    const h = emptyRmaHeader();
    h.kind = kind;
    h.value = value;
    this.channel.sendControl(origin, h);
  }

  /**
   * The span an operation names in this window, or undefined when it must be refused: its program
   * does not decode, or the bytes it touches leave the window (the RMR's rule, enforced here for
   * operations that arrive as messages).
   */
  #span(h: RmaHeader, program: GatherProgram | undefined): WindowSpan | undefined {
    if (program === undefined) return undefined;
    if (!Number.isSafeInteger(h.offset)) return undefined;
    const { first, end } = touchedRange(program, h.count, h.offset);
    if (first < 0 || end > this.channel.window.bytes.length) return undefined;
    return { offset: h.offset, program, count: h.count };
  }

  /** The program in the header, or the predefined element's; undefined when neither decodes. */
  #program(h: RmaHeader, view: DataView): GatherProgram | undefined {
    if ((h.flags & RmaFlag.PROGRAM) !== 0) {
      try {
        return readProgram(view, HEADER_BYTES, h.programBytes);
      } catch {
        return undefined;
      }
    }
    return ELEMENT_TYPES[h.element]?.program;
  }

  #put(source: number, h: RmaHeader, view: DataView, message: Uint8Array): void {
    if ((h.flags & RmaFlag.PROGRAM_FOLLOWS) !== 0) {
      // The program is too large for the header: it arrives with the data, both into a buffer here.
      const header = { ...h };
      const incoming = this.#incoming(source, h);
      incoming.request.onDone(() => {
        const { span, ok } = this.#check(header, incoming.program(), header.dataBytes);
        if (ok && incoming.request.error === undefined) this.channel.window.scatter(span!, incoming.bytes, header.programBytes);
        this.#counted(source, !ok || incoming.request.error !== undefined);
      });
      return;
    }
    const { span, ok } = this.#check(h, this.#program(h, view), h.dataBytes);
    if ((h.flags & RmaFlag.DATA_FOLLOWS) === 0) {
      if (ok) this.channel.window.scatter(span!, message, HEADER_BYTES + h.programBytes);
      return this.#counted(source, !ok);
    }
    // The data follows: straight into the window (the device scatters it), or, refused, into nothing
    // (it is consumed and dropped, the window untouched).
    const into: BufferSpan = ok ? { bytes: this.channel.window.bytes, offset: span!.offset, program: span!.program, count: span!.count, size: h.dataBytes } : byteSpan(new Uint8Array(0));
    const request = this.channel.receive(source, RmaTag.DATA, into);
    request.onDone(() => this.#counted(source, !ok || request.error !== undefined));
  }

  /** An operation's span and whether it is acceptable: inside the window, with `dataBytes` of data. */
  #check(h: RmaHeader, program: GatherProgram | undefined, dataBytes: number): { span: WindowSpan | undefined; ok: boolean } {
    const span = this.#span(h, program);
    const bytes = span === undefined ? 0 : span.program.size * span.count;
    const expected = h.kind === RmaKind.COMPARE_AND_SWAP ? 2 * bytes : h.kind === RmaKind.GET || OPS[h.op] === Op.NO_OP ? 0 : bytes;
    return { span, ok: span !== undefined && expected === dataBytes };
  }

  /** Receive the second message of an operation (its program and/or data) into a buffer of its own. */
  #incoming(source: number, h: RmaHeader): { bytes: Uint8Array; request: RecvRequest; program: () => GatherProgram | undefined } {
    const follows = (h.flags & RmaFlag.PROGRAM_FOLLOWS) !== 0;
    const bytes = new Uint8Array((follows ? h.programBytes : 0) + h.dataBytes);
    const request = this.channel.receive(source, RmaTag.DATA, byteSpan(bytes));
    const element = h.element;
    const program = (): GatherProgram | undefined => {
      if (!follows) return ELEMENT_TYPES[element]?.program;
      try {
        return readProgram(new DataView(bytes.buffer), 0, h.programBytes);
      } catch {
        return undefined;
      }
    };
    return { bytes, request, program };
  }

  /** Accumulates, gets and fetches: applied one at a time in each origin's issue order. */
  #queued(source: number, h: RmaHeader, view: DataView, message: Uint8Array): void {
    const kind = h.kind;
    const op = OPS[h.op];
    const element = ELEMENT_TYPES[h.element];
    const dataBytes = h.dataBytes;
    const header = { ...h };
    const queue = this.#queues[source];
    let data = message;
    let at = HEADER_BYTES + h.programBytes;
    let program: () => GatherProgram | undefined = () => this.#program(header, view);
    let failed = false;
    const entry: Queued = {
      ready: true,
      run: () => {
        const { span, ok } = this.#check(header, program(), dataBytes);
        const combines = kind === RmaKind.ACCUMULATE || kind === RmaKind.GET_ACCUMULATE;
        const atoms = span !== undefined && element !== undefined && (span.program.size * span.count) % element.size === 0;
        if (!ok || failed || (combines && (op === undefined || !atoms)) || (kind === RmaKind.COMPARE_AND_SWAP && !atoms)) return this.#refuse(source, kind);
        const bytes = span!.program.size * span!.count;
        const window = this.channel.window;
        let reply: BufferSpan | undefined;
        if (kind === RmaKind.GET) {
          // Straight from the window: the origin waits for this reply before it ends its epoch.
          reply = { bytes: window.bytes, offset: span!.offset, program: span!.program, count: span!.count, size: bytes };
        } else if (kind === RmaKind.COMPARE_AND_SWAP) {
          reply = byteSpan(window.compareAndSwap(span!.offset + span!.program.minOffset, bytes, data.subarray(at, at + bytes), data.subarray(at + bytes, at + 2 * bytes)));
        } else {
          const old = window.accumulate(span!, data, at, op, element!, kind === RmaKind.GET_ACCUMULATE);
          if (old !== undefined) reply = byteSpan(old);
        }
        if (reply !== undefined) this.channel.sendData(source, RmaTag.REPLY, reply);
        this.#counted(source, false);
      },
    };
    if ((h.flags & (RmaFlag.DATA_FOLLOWS | RmaFlag.PROGRAM_FOLLOWS)) !== 0) {
      entry.ready = false;
      const incoming = this.#incoming(source, h);
      // The view of the header's message is gone by then: the program is read from what followed, or is the element's.
      if ((h.flags & RmaFlag.PROGRAM) !== 0) {
        const inHeader = this.#program(header, view);
        program = () => inHeader;
      } else program = incoming.program;
      data = incoming.bytes;
      at = (h.flags & RmaFlag.PROGRAM_FOLLOWS) !== 0 ? h.programBytes : 0;
      incoming.request.onDone(() => {
        failed = incoming.request.error !== undefined;
        entry.ready = true;
        this.#drain(source);
      });
    } else if (queue.length === 0) {
      return entry.run();
    } else {
      // It waits behind another: its program and data are copied out of the receive buffer.
      const inHeader = this.#program(header, view);
      program = () => inHeader;
      data = message.slice(at, at + dataBytes);
      at = 0;
      this.channel.clock.chargeCopy(data.length);
    }
    queue.push(entry);
    this.#drain(source);
  }

  /** A refused fetch still answers (with nothing) so that its origin's receive completes and reports it. */
  #refuse(source: number, kind: RmaKind): void {
    if (kind !== RmaKind.ACCUMULATE) this.channel.sendData(source, RmaTag.REPLY, byteSpan(new Uint8Array(0)));
    this.#counted(source, true);
  }

  #drain(source: number): void {
    const queue = this.#queues[source];
    while (queue.length > 0 && queue[0].ready) queue.shift()!.run();
  }
}
