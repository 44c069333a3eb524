import type { Clock, RmrTriplet } from '@dapl/core';
import type { PointToPoint } from '../adi/point-to-point.js';
import type { RequestCore } from '../adi/request-core.js';
import { SendMode, type RecvRequest } from '../adi/requests.js';
import { byteSpan, type BufferSpan } from '../adi/transfer.js';
import { ANY_SOURCE } from '../api/constants.js';
import type { MpiError } from '../api/errors.js';
import type { RdmaTransport } from '../device/rdma-transport.js';
import { packRange, type GatherProgram } from '../datatype/index.js';
import type { WindowMemory } from './apply.js';
import { CONTROL_BYTES, HEADER_BYTES, RmaTag, programBytes, writeProgram, writeRmaHeader, type RmaHeader } from './wire.js';

/** What an origin knows of each member's window (allgathered at creation). */
export interface RemoteWindow {
  readonly size: number;
  readonly dispUnit: number;
  /** The RMR over it, where the device exposes windows for direct RDMA. */
  readonly triplet: RmrTriplet | undefined;
}

/** Receives one control message: its source rank and its bytes (valid only during the call). */
export type ControlHandler = (source: number, message: Uint8Array, length: number) => void;

/**
 * A window's messages: every one on the hidden context of the window's own communicator (a dup of
 * the creator's), so they never match the application's. Control messages carry a header (and the
 * target's datatype program and small data: the LAPI one-sided patent's one message); one persistent any-source
 * receive per rank takes them and re-posts itself, so a target makes progress from the device's
 * event notifications without calling MPI. Messages to the rank itself are dispatched locally.
 */
export class RmaChannel {
  readonly #control = new Uint8Array(CONTROL_BYTES);
  #posted: RecvRequest | undefined;
  #closed = false;
  #handler: ControlHandler | undefined;
  readonly #sentinels: RecvRequest[] = [];
  /** A control message the handler could not take (corrupt, or a bug): reported by the next synchronisation. */
  failure: unknown = undefined;

  constructor(
    readonly p2p: PointToPoint,
    readonly context: number,
    /** World rank of each member. */
    readonly worldRanks: readonly number[],
    readonly rank: number,
    readonly clock: Clock,
    readonly window: WindowMemory,
    readonly remotes: readonly RemoteWindow[],
    readonly transport: RdmaTransport | undefined,
  ) {}

  get size(): number {
    return this.worldRanks.length;
  }

  /** Start taking control messages (once). */
  listen(handler: ControlHandler): void {
    this.#handler = handler;
    this.#post();
  }

  #post(): void {
    if (this.#closed) return;
    const request = this.p2p.irecv(this.context, ANY_SOURCE, RmaTag.CONTROL, byteSpan(this.#control), undefined);
    this.#posted = request;
    // Handled after the device's delivery has returned: the handler sends and receives.
    request.onDone(() => queueMicrotask(() => this.#arrived(request)));
  }

  #arrived(request: RecvRequest): void {
    if (this.#closed || request.status?.cancelled === true) return;
    // A message too large for a control message (not one of ours) is dropped, and reported; the
    // receive goes on.
    if (request.error !== undefined) this.failure ??= request.error;
    else this.#handle(request.status!.source, this.#control, request.status!.count);
    this.#post();
  }

  /** Never throws: this runs from the event loop. */
  #handle(source: number, message: Uint8Array, length: number): void {
    try {
      this.#handler!(source, message, length);
    } catch (error) {
      this.failure ??= error;
    }
  }

  /**
   * Call `onLost` if a member is lost: one 0-byte receive per other member on a tag nothing is
   * sent on, which only fails (ERR_PROC_FAILED) when the device loses that member, so that no
   * synchronisation waits for ever on a rank that is gone.
   */
  watch(onLost: (peer: number, error: MpiError) => void): void {
    for (let peer = 0; peer < this.size; peer++) {
      if (peer === this.rank) continue;
      const sentinel = this.receive(peer, RmaTag.SENTINEL, byteSpan(new Uint8Array(0)));
      this.#sentinels.push(sentinel);
      sentinel.onDone(() => {
        if (!this.#closed && sentinel.error !== undefined) onLost(peer, sentinel.error);
      });
    }
  }

  /** Stop listening (the window is freed; every member has agreed that nothing more is coming). */
  close(): void {
    this.#closed = true;
    if (this.#posted !== undefined && !this.#posted.done) this.p2p.cancel(this.#posted);
    for (const sentinel of this.#sentinels) if (!sentinel.done) this.p2p.cancel(sentinel);
  }

  /**
   * Send a control message to `target`: the header, then the program, then `inline` data (packed
   * from a span) when given. To this rank itself, it is handled locally (in a microtask, as an
   * arrival would be).
   */
  sendControl(target: number, h: RmaHeader, program?: GatherProgram, inline?: BufferSpan): RequestCore | undefined {
    const message = encodeControl(h, program, inline, this.clock);
    if (target === this.rank) {
      queueMicrotask(() => {
        if (!this.#closed) this.#handle(target, message, message.length);
      });
      return undefined;
    }
    return this.p2p.isend(this.worldRanks[target], this.context, this.rank, RmaTag.CONTROL, byteSpan(message), SendMode.STANDARD);
  }

  /** Data for `target` on tag `tag` straight from `span` (no copy here). */
  sendData(target: number, tag: RmaTag, span: BufferSpan): RequestCore {
    return this.p2p.isend(this.worldRanks[target], this.context, this.rank, tag, span, SendMode.STANDARD);
  }

  /** Receive `span` from `source` on tag `tag`. */
  receive(source: number, tag: RmaTag, span: BufferSpan): RecvRequest {
    return this.p2p.irecv(this.context, source, tag, span, this.worldRanks[source]);
  }
}

/**
 * A control message: the header, then `program` when given, then `inline` data packed from its
 * span (the copy charged to `clock`).
 */
export function encodeControl(h: RmaHeader, program: GatherProgram | undefined, inline: BufferSpan | undefined, clock: Clock): Uint8Array {
  const programLength = program === undefined ? 0 : programBytes(program);
  const dataLength = inline === undefined ? 0 : inline.size;
  if (program !== undefined) h.programBytes = programLength;
  const message = new Uint8Array(HEADER_BYTES + programLength + dataLength);
  const view = new DataView(message.buffer);
  writeRmaHeader(view, h);
  if (program !== undefined) writeProgram(view, HEADER_BYTES, program);
  if (inline !== undefined && dataLength > 0) {
    packRange(inline.program, inline.count, inline.bytes, inline.offset, 0, message, HEADER_BYTES + programLength, dataLength);
    clock.chargeCopy(dataLength);
  }
  return message;
}
