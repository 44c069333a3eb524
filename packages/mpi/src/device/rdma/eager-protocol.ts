import type { Endpoint } from '@dapl/core';
import { HEADER_BYTES, MessageKind, type Header } from '../../adi/header.js';
import { SendMode, SendRequest, type IncomingMessage, type RecvRequest } from '../../adi/requests.js';
import { byteSpan, type BufferSpan } from '../../adi/transfer.js';
import { ErrorClass, MpiError } from '../../api/errors.js';
import { packRange, unpackRange } from '../../datatype/index.js';
import type { Arrival } from './arrival.js';
import { BounceBuffers } from './bounce-buffers.js';
import { ImmediateKind } from './immediate.js';
import type { PeerLink } from './peer-link.js';
import { AdvertisedRecv, type ReceiverInitiated } from './receiver-initiated.js';
import { countArrival, incoming, sendStatus, type RdmaContext } from './rdma-context.js';
import type { EagerBuffer, Slot } from './slot.js';
import type { UnexpectedData } from './unexpected-data.js';

/** Blocking sends in flight at once that may be copied (more go zero-copy): concurrent MPI_Sends are few. */
const BOUNCE_BUFFERS = 4;

/**
 * Eager messages, up to `mpi.eagerLimit` (the MVAPICH2-over-uDAPL paper, Chai et al. §3.2): the
 * sender copies the message behind the header into one of its pre-registered send buffers and
 * posts it into one of the receive buffers pre-posted for it (a credit); the receiver copies it
 * straight into the posted receive it matches, or keeps it as an unexpected message. Also here:
 * blocking sends above the eager limit that complete from a copy (`mpi.bounceLimit`).
 */
export class EagerProtocol {
  readonly #ctx: RdmaContext;
  readonly #advertised: ReceiverInitiated;
  readonly #unexpected: UnexpectedData;
  /** Library buffers of blocking sends that complete before their transfer (see `bounce`). */
  readonly #bounceBuffers: BounceBuffers;

  constructor(ctx: RdmaContext, advertised: ReceiverInitiated, unexpected: UnexpectedData) {
    this.#ctx = ctx;
    this.#advertised = advertised;
    this.#unexpected = unexpected;
    this.#bounceBuffers = new BounceBuffers(BOUNCE_BUFFERS, ctx.params.bounceLimit);
  }

  /**
   * A blocking send (MPI_Send) of a rendezvous size up to `bounceLimit`: copy the message into a
   * library buffer, complete the caller's request now (MPI lets a standard send buffer), and send
   * the copy instead by whichever rendezvous applies. Without it the caller waits for the transfer's
   * remote completion — a round trip — before it can post its next receive, whose advertisement
   * then reaches the peer after the peer's reply has gone by RTS: a ping-pong of 16 KiB on tcp took
   * 3-4x DAT's time. Undefined: send the request itself (no buffer free, or not such a send).
   */
  bounce(request: SendRequest): SendRequest | undefined {
    if (!request.blocking) return undefined;
    const data = request.data;
    const params = this.#ctx.params;
    if (data.size <= params.eagerLimit || data.size > params.bounceLimit) return undefined;
    if (request.mode !== SendMode.STANDARD && request.mode !== SendMode.READY) return undefined;
    const buffer = this.#bounceBuffers.take();
    if (buffer === undefined) return undefined;
    const copy = buffer.subarray(0, data.size);
    this.#packCharged(data, copy, 0);
    this.#ctx.counts.bouncedSends++;
    const wire = new SendRequest(request.peer, request.context, request.source, request.tag, byteSpan(copy), request.mode);
    wire.onDone(() => this.#bounceBuffers.give(buffer));
    request.complete(sendStatus);
    return wire;
  }

  /** Fill `h` and `slot` with the eager message `request`; the bytes behind the header it takes. */
  encode(h: Header, request: SendRequest, slot: EagerBuffer): number {
    const data = request.data;
    const sync = request.mode === SendMode.SYNCHRONOUS;
    h.kind = sync ? MessageKind.EAGER_SYNC : MessageKind.EAGER;
    if (sync) request.id = h.senderRequest = this.#ctx.sendTable.add(request);
    this.#packCharged(data, slot.bytes, HEADER_BYTES);
    this.#ctx.counts.eagerSends++;
    return data.size;
  }

  /**
   * Eager data of a standard, ready or buffered send is in our buffer once posted: the send is
   * complete (MPI allows it). A blocking one may instead wait for its bytes to leave, where the
   * provider says when that is (tcp writes a turn's posts at the end of the turn): what its caller
   * does next then runs after the write. An MPI_Send that acknowledges a window (osu_bw) otherwise
   * waits in the socket behind the next window's receives: 13 us of a 100 us window at 8 B. Not
   * when the caller's last receive from this peer was advertised: its next ones likely are too, the
   * peer can write nothing before their advertisements, and the message rides with them.
   */
  posted(link: PeerLink, request: SendRequest, slot: Slot): void {
    if (request.blocking && this.#ctx.settings.localCompletion && !link.advertisedLast) slot.owner = request;
    else request.complete(sendStatus);
  }

  /**
   * An eager message arrived in `slot`. The common case: a receive is posted for it, and it is
   * copied straight from the buffer, with no message record; else it becomes one and joins the
   * unexpected queue.
   */
  arrived(h: Header, slot: EagerBuffer, ep: Endpoint, link: PeerLink): void {
    const ordinal = countArrival(this.#ctx.settings, link, h.context, h.tag);
    const request = this.#ctx.host.takePosted(h.context, h.source, h.tag);
    if (request !== undefined) return this.#deliverArrived(request, slot, ep, link, h);
    const arrival: Arrival = { slot, ep, link, senderRequest: h.senderRequest, remote: undefined, copied: false, epoch: link.arrived.epoch, ordinal };
    this.#ctx.host.arriveUnexpected(incoming(link.peer, h, slot.payload(h.size), arrival));
  }

  /**
   * An eager message matched `request` on arrival: its data goes from the receive buffer into the
   * request, and the buffer back to the peer (`deliver` with a payload, without the records).
   */
  #deliverArrived(request: RecvRequest, slot: EagerBuffer, ep: Endpoint, link: PeerLink, h: Header): void {
    // An advertised receive took a message small enough to go eager: its window closes.
    if (request.deviceState instanceof AdvertisedRecv) this.#advertised.withdraw(request);
    const size = h.size;
    const unpacked = this.#tryUnpack(request, slot.bytes, HEADER_BYTES, Math.min(size, request.data.size));
    const source = h.source;
    const tag = h.tag;
    const sync = h.kind === MessageKind.EAGER_SYNC;
    const senderRequest = h.senderRequest;
    // Re-posting may pump sends that encode into the other header; ours is read out first.
    this.#ctx.repost(slot, ep, link);
    if (sync) this.#ctx.ring(ep, link, ImmediateKind.SYNC_ACK, senderRequest);
    if (unpacked === undefined) request.finish(source, tag, size);
    else request.fail(unpacked);
  }

  /** An unexpected eager `message` (its payload kept or still in its buffer) matched `request`. */
  deliverKept(message: IncomingMessage & { payload: Uint8Array }, arrival: Arrival, request: RecvRequest): void {
    this.#unpackCharged(request, message.payload, 0, Math.min(message.size, request.data.size));
    this.#unexpected.release(message, arrival);
    if (message.synchronous) this.#ctx.ring(arrival.ep, arrival.link, ImmediateKind.SYNC_ACK, arrival.senderRequest);
    request.finish(message.source, message.tag, message.size);
  }

  /** `#unpackCharged`, its failure (a receive buffer detached while the receive was pending) returned as the request's error. */
  #tryUnpack(request: RecvRequest, src: Uint8Array, at: number, length: number): MpiError | undefined {
    // A detached buffer's views read as empty (and writes to them vanish): the span was not, when posted.
    if (request.data.size > 0 && request.data.bytes.byteLength === 0) return new MpiError(ErrorClass.ERR_BUFFER, 'the receive buffer was detached (transferred) while the receive was pending: the message was dropped', { argument: 'buf' });
    try {
      this.#unpackCharged(request, src, at, length);
      return undefined;
    } catch (error) {
      return new MpiError(ErrorClass.ERR_BUFFER, `the receive buffer could not take the message (${String(error)}); was its ArrayBuffer detached or resized while the receive was pending?`, { cause: error, argument: 'buf' });
    }
  }

  /** Scatter `length` packed bytes from `src[at…]` into `request`, the copy charged to the clock: eager data delivered. */
  #unpackCharged(request: RecvRequest, src: Uint8Array, at: number, length: number): void {
    const span = request.data;
    if (length > 0) unpackRange(span.program, span.count, span.bytes, span.offset, 0, src, at, length);
    this.#ctx.clock.chargeCopy(length);
  }

  /** Copy (gather) a span's packed bytes into `out` from `at`, the copy charged to the clock: an eager or a bounced send. */
  #packCharged(span: BufferSpan, out: Uint8Array, at: number): void {
    if (span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, out, at, span.size);
    this.#ctx.clock.chargeCopy(span.size);
  }
}
