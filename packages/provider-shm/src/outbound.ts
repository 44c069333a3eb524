import type { Iov } from '@dapl/core';
import { Fifo } from '@dapl/core/provider-kit';
import { Kind, KIND_BITS, Refusal, W_ARG, W_CONTEXT_HI, W_CONTEXT_LO, W_KIND, W_LENGTH, W_OFFSET_HI, W_OFFSET_LO, W_TOTAL } from './frames.js';
import { FRAME_ALIGN, FRAME_HEADER_BYTES, frameBytes, type SpscRing } from './ring.js';

const TWO_32 = 2 ** 32;

/** One message waiting for (or part-way into) the outgoing ring. */
interface OutMessage {
  kind: Kind;
  /** Header word 2: the message's length (a count for an ACK). */
  total: number;
  /** Payload bytes the message carries (0 for requests that only name a window). */
  payload: number;
  /** Payload bytes already in the ring. */
  sent: number;
  started: boolean;
  /** Immediate data, refusal, or 0. */
  arg: number;
  /** The peer's requests that succeeded before this message was added, reported in its first frame. */
  acks: number;
  contextLo: number;
  contextHi: number;
  offset: number;
  /** The payload: the request's iov, or a window of the responder's memory. */
  iov: Iov | undefined;
  bytes: Uint8Array | undefined;
  start: number;
}

/**
 * The sending half of a connection: messages in order, each copied into the ring in fragments as
 * room allows (one copy in; the receiver makes the one copy out). Requests, the target's ACKs and
 * read responses share the one ordered stream.
 */
export class Outbound {
  readonly #queue = new Fifo<OutMessage>(16);
  /** The message being written when the queue is empty: one that fits at once needs no object of its own. */
  readonly #scratch: OutMessage = { kind: Kind.SEND, total: 0, payload: 0, sent: 0, started: false, arg: 0, acks: 0, contextLo: 0, contextHi: 0, offset: 0, iov: undefined, bytes: undefined, start: 0 };
  /** Frames were published since the peer's doorbell last rang. */
  published = false;
  /**
   * The peer's requests that succeeded and are not reported yet: the next message added carries
   * them (taken when it is added, so that they are reported before anything added after them).
   */
  acks = 0;

  constructor(
    private readonly ring: SpscRing,
    private readonly fragment: number,
  ) {}

  get idle(): boolean {
    return this.#queue.size === 0;
  }

  /** A request of `total` bytes; `payload` of them (all, or none) travel in the ring from `iov`. */
  request(kind: Kind, iov: Iov, total: number, payload: number, context: bigint, offset: number, immediate: number): void {
    // A send names no window: no BigInt arithmetic for it.
    const lo = context === 0n ? 0 : Number(context & 0xffffffffn) | 0;
    const hi = context === 0n ? 0 : Number(context >> 32n) | 0;
    this.#add(kind, total, payload, immediate | 0, lo, hi, offset, iov, undefined, 0);
  }

  /** Report the successes so far, then `refusal` for the request that failed (if any). */
  ack(refusal: Refusal): void {
    this.#add(Kind.ACK, 0, 0, refusal, 0, 0, 0, undefined, undefined, 0);
  }

  readResponse(bytes: Uint8Array | undefined, start: number, total: number, refusal: Refusal): void {
    const length = refusal === Refusal.NONE ? total : 0;
    this.#add(Kind.READ_RESPONSE, length, length, refusal, 0, 0, 0, undefined, bytes, start);
  }

  /** Write what fits; true if any frame was published. Leaves the ring asking for room when it is full. */
  pump(): boolean {
    let moved = false;
    for (let m = this.#queue.peek(); m !== undefined; m = this.#queue.peek()) {
      const done = this.#write(m);
      if (m.started) moved = true;
      if (!done) {
        this.ring.wantRoom();
        // The consumer may have freed room between our look and the request: look again.
        if (this.ring.roomWanted) continue;
        break;
      }
      this.#queue.shift();
    }
    if (moved) this.published = true;
    return moved;
  }

  clear(): void {
    this.acks = 0;
    this.#queue.drain();
  }

  #add(kind: Kind, total: number, payload: number, arg: number, contextLo: number, contextHi: number, offset: number, iov: Iov | undefined, bytes: Uint8Array | undefined, start: number): void {
    const acks = this.acks;
    this.acks = 0;
    if (this.#queue.size > 0) {
      this.#queue.push({ kind, total, payload, sent: 0, started: false, arg, acks, contextLo, contextHi, offset, iov, bytes, start });
      return;
    }
    const m = this.#scratch;
    m.kind = kind;
    m.total = total;
    m.payload = payload;
    m.sent = 0;
    m.started = false;
    m.arg = arg;
    m.acks = acks;
    m.contextLo = contextLo;
    m.contextHi = contextHi;
    m.offset = offset;
    m.iov = iov;
    m.bytes = bytes;
    m.start = start;
    const done = this.#write(m);
    if (m.started) this.published = true;
    m.iov = undefined;
    m.bytes = undefined;
    if (done) return;
    // Part of it (or none) fits: it waits in the queue, as its own object, for room.
    this.#queue.push({ ...m, iov, bytes });
    this.pump();
  }

  /** As many frames of `m` as fit; true once all of it is in the ring. */
  #write(m: OutMessage): boolean {
    const ring = this.ring;
    for (;;) {
      const left = m.payload - m.sent;
      if (m.started && left === 0) return true;
      const room = ring.room(frameBytes(Math.min(left, this.fragment))) - FRAME_HEADER_BYTES;
      if (room < 0) return false;
      const piece = Math.min(left, this.fragment, room - (room % FRAME_ALIGN));
      if (piece === 0 && left > 0) return false;
      const at = ring.writeOffset;
      const w = ring.words;
      const h = at >> 2;
      w[h + W_KIND] = m.started ? Kind.MORE : m.kind | (m.acks << KIND_BITS);
      w[h + W_LENGTH] = piece;
      w[h + W_TOTAL] = m.total;
      w[h + W_ARG] = m.arg;
      w[h + W_CONTEXT_LO] = m.contextLo;
      w[h + W_CONTEXT_HI] = m.contextHi;
      w[h + W_OFFSET_LO] = m.offset % TWO_32 | 0;
      w[h + W_OFFSET_HI] = Math.floor(m.offset / TWO_32);
      if (piece > 0) {
        if (m.iov !== undefined) putFromIov(ring, at, m.iov, m.sent, piece);
        else ring.put(at, 0, m.bytes!.subarray(m.start + m.sent, m.start + m.sent + piece));
      }
      ring.commit(frameBytes(piece));
      m.sent += piece;
      m.started = true;
    }
  }
}

/** Copy `length` bytes of `iov`, from `skip` bytes into it, into the payload of the frame at `at`. */
function putFromIov(ring: SpscRing, at: number, iov: Iov, skip: number, length: number): void {
  let placed = 0;
  for (let i = 0; i < iov.length && placed < length; i++) {
    const seg = iov[i];
    if (skip >= seg.length) {
      skip -= seg.length;
      continue;
    }
    const n = Math.min(seg.length - skip, length - placed);
    const from = seg.offset + skip;
    ring.putFrom(at, placed, seg.lmr.bytes, from, n);
    placed += n;
    skip = 0;
  }
}
