import type { DtoCompletionEvent, Endpoint } from '@dapl/core';
import { defer } from '@dapl/core';
import type { Header } from '../../adi/header.js';
import type { IncomingMessage, RecvRequest, SendRequest } from '../../adi/requests.js';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { Advertisement } from './advertised-receives.js';
import type { Arrival } from './arrival.js';
import { ImmediateKind } from './immediate.js';
import { messageKey } from './message-counter.js';
import type { PeerLink } from './peer-link.js';
import { NoticeBatch, emptyNotice, readNotice } from './receive-notices.js';
import { WRITE_ACCESS, inPlaceStart, type Exposure } from './rendezvous.js';
import type { RendezvousProtocol, RendezvousSend } from './rendezvous-protocol.js';
import { SharedExposures } from './shared-exposures.js';
import { countArrival, type RdmaContext } from './rdma-context.js';

/** A receive advertised to its sender: its buffer is exposed for the sender's RDMA write. */
export class AdvertisedRecv {
  withdrawn = false;
  revoking = false;
  /**
   * Matched by an RTS whose sender will write into it once our advertisement reaches it. Until it
   * is adopted or withdrawn, it is counted in its link's `advertisedPosted` (posted, unmatched).
   */
  adopted: { source: number; tag: number; size: number } | undefined = undefined;
  constructor(
    readonly link: PeerLink,
    readonly key: number,
    readonly exposure: Exposure,
    /** The message it will match. */
    readonly epoch: number,
    readonly ordinal: number,
  ) {}
}

/**
 * Receiver-initiated rendezvous: a large receive posted before its message is advertised to the
 * sender (batched: a window of receives costs one eager buffer), with the ordinal of the message it
 * will match — both ends count each link's messages per context and tag, in the same order. The
 * sender writes that message straight into the receive, FIN in the write's immediate: no RTS and no
 * wait for the receiver. An advertisement that arrives after the message's RTS still claims it.
 * Cancelling an advertised receive takes a round trip (REVOKE, REVOKED). docs/mpi-design.md has the
 * proof of the ordering.
 */
export class ReceiverInitiated {
  readonly #ctx: RdmaContext;
  readonly #rendezvous: RendezvousProtocol;
  readonly #inNotice = emptyNotice();
  /** Windows of advertised receives, one binding per distinct receive buffer. */
  readonly #windows: SharedExposures;
  /** Links with a notice batch queued and not pumped yet (see `flush`). */
  readonly #unsent = new Set<PeerLink>();

  constructor(ctx: RdmaContext, rendezvous: RendezvousProtocol) {
    this.#ctx = ctx;
    this.#rendezvous = rendezvous;
    this.#windows = new SharedExposures(
      () => ctx.takeRmr(),
      (rmr) => ctx.returnRmr(rmr),
      WRITE_ACCESS,
    );
  }

  // ---- the sender's side ---------------------------------------------------------------------

  /**
   * When the peer advertised the receive that this message will match, write the data straight
   * into it, the FIN in the write's immediate. No RTS, no credit, no wait for the receiver. False:
   * the message goes the usual way.
   */
  tryWrite(link: PeerLink, request: SendRequest): boolean {
    if (!this.#rendezvous.writable(request.data.size)) return false;
    const sent = link.sent;
    const ordinal = sent.nextOrdinal(request.context, request.tag);
    const ad = link.advertisements.take(request.context, request.tag, sent.nextEpoch(ordinal), ordinal);
    if (ad === undefined || request.data.size > ad.length) return false;
    sent.count(request.context, request.tag);
    request.deviceState = { region: undefined, exposure: undefined, chunksLeft: 0 } satisfies RendezvousSend;
    this.#write(request, link, ad);
    return true;
  }

  /** Write `request`'s message into the advertised receive, its FIN in the write's immediate. */
  #write(request: SendRequest, link: PeerLink, ad: Advertisement): void {
    this.#ctx.counts.receiverInitiatedSends++;
    this.#rendezvous.write(request, link, ad, ad.receiverRequest, ImmediateKind.FIN_ADVERTISED);
  }

  /**
   * An ADVERTISE message of `h.size` notices in `view`. Without receiver-initiated rendezvous we
   * count nothing, so cannot tell which message an advertisement names: they are ignored (our RTSs
   * are not claimable; the peer reads as usual).
   */
  onAdvertise(h: Header, link: PeerLink, view: DataView): void {
    const sent = link.sent;
    for (let i = 0; this.#ctx.settings.advertise && i < h.size; i++) {
      const n = readNotice(view, i, this.#inNotice);
      const ad: Advertisement = { rmrContext: n.rmrContext, targetOffset: n.targetOffset, length: n.capacity, receiverRequest: n.receiverRequest, epoch: n.epoch, ordinal: n.ordinal };
      if (ad.epoch === sent.epoch && ad.ordinal > sent.counted(n.context, n.tag)) link.advertisements.add(n.context, n.tag, ad);
      else this.#claimLate(link, n.context, n.tag, ad);
    }
  }

  /**
   * An advertisement for a message already sent by RTS: if that RTS is unanswered, the receiver has
   * matched it to this receive and waits for our write (it does not read), so write now.
   */
  #claimLate(link: PeerLink, context: number, tag: number, ad: Advertisement): void {
    const request = link.claimable.take(context, tag, ad.epoch, ad.ordinal);
    if (request === undefined) return;
    (request.deviceState as RendezvousSend).claimOrdinal = undefined;
    if (request.data.size > ad.length) return;
    this.#ctx.sendTable.take(request.id);
    this.#rendezvous.releaseSend(request);
    this.#ctx.counts.lateAdvertisements++;
    this.#write(request, link, ad);
  }

  /** A REVOKE message: forget those advertisements, each answered on the endpoint our writes go out on. */
  onRevoke(h: Header, link: PeerLink, view: DataView, arrivedOn: Endpoint): void {
    // Each answer then arrives after any write into its receive.
    const out = link.ready ? link.sendEp! : arrivedOn;
    for (let i = 0; i < h.size; i++) {
      const n = readNotice(view, i, this.#inNotice);
      link.advertisements.forgetFrom(n.context, n.tag, n.epoch, n.ordinal);
      this.#ctx.ring(out, link, ImmediateKind.REVOKED, n.receiverRequest);
    }
  }

  // ---- the receiver's side -------------------------------------------------------------------

  /**
   * Tell the sender about a large receive posted before its message, and which of its messages will
   * match it — the n-th with this context and tag, counted as both ends count. That is certain only
   * when every older posted receive that could take such a message has this source and tag and was
   * advertised too: then they take the messages in post order. Whether it was advertised.
   */
  advertise(request: RecvRequest): boolean {
    const ctx = this.#ctx;
    const peer = request.peer;
    const data = request.data;
    if (peer === undefined || !this.#rendezvous.writable(data.size) || !data.program.contiguous) return false;
    const link = ctx.link(peer);
    if (link.failed !== undefined || link.revoking.length > 0) return false;
    const ahead = ctx.host.olderRivals(request);
    if (ahead < 0) return false;
    const key = messageKey(request.context, request.tag);
    const advertised = link.advertisedPosted.get(key) ?? 0;
    if (ahead !== advertised) return false;
    const exposure = this.#windows.acquire(ctx.settings.cache!.lmrFor(data.bytes), inPlaceStart(data), data.size);
    const ordinal = link.arrived.counted(request.context, request.tag) + ahead + 1;
    request.deviceState = new AdvertisedRecv(link, key, exposure, link.arrived.epoch, ordinal);
    request.id = ctx.recvTable.add(request);
    link.advertisedPosted.set(key, advertised + 1);
    this.#notice(link, 'advertise').add(request, link.arrived.epoch, ordinal, exposure.triplet);
    ctx.counts.advertisedReceives++;
    return true;
  }

  /**
   * The batch a notice of `kind` joins: the open one, or a new one queued behind everything sent
   * so far. It leaves when the link is next pumped — at the latest a microtask later, so that the
   * receives of one burst share a message.
   */
  #notice(link: PeerLink, kind: 'advertise' | 'revoke'): NoticeBatch {
    const open = kind === 'advertise' ? link.openAdvertise : link.openRevoke;
    if (open !== undefined && !open.full) return open;
    const batch = new NoticeBatch(kind, this.#ctx.settings.noticesPerMessage);
    if (kind === 'advertise') link.openAdvertise = batch;
    else link.openRevoke = batch;
    link.push(batch);
    if (this.#unsent.size === 0) defer(this.flush);
    this.#unsent.add(link);
    return batch;
  }

  /**
   * Pump the links whose notices wait for it: a microtask after the first of a burst, or at once
   * when a blocking call polls (`Device.poll`), which runs no microtask until it is done.
   */
  readonly flush = (): void => {
    if (this.#unsent.size === 0) return;
    const links = [...this.#unsent];
    this.#unsent.clear();
    for (const link of links) this.#ctx.pump(link);
  };

  /**
   * A message was written into an advertised receive (its FIN_ADVERTISED): it arrives like any
   * other, its data already in place. Returns its link when it is a message DAT brought (counted
   * by `arrivedByDat`), undefined when the write completed one an RTS brought.
   */
  arrived(event: DtoCompletionEvent, id: number): PeerLink | undefined {
    const ctx = this.#ctx;
    const request = ctx.recvTable.get(id);
    const state = request?.deviceState;
    if (request === undefined || !(state instanceof AdvertisedRecv)) return undefined;
    const adopted = state.adopted;
    if (adopted !== undefined) {
      // Matched earlier by the message's RTS; the data is in place now.
      this.withdraw(request);
      request.finish(adopted.source, adopted.tag, adopted.size);
      return undefined;
    }
    const link = state.link;
    ctx.arrivedByDat(link);
    const ordinal = countArrival(ctx.settings, link, request.context, request.tag);
    // The common case: the receive is the oldest that accepts the message, so matching gives it
    // this receive; finish it without building the message and arrival records the general path needs.
    if (ctx.host.arriveInto(request)) {
      this.withdraw(request);
      request.finish(request.source, request.tag, event.transferredLength);
      return link;
    }
    const arrival: Arrival = { slot: undefined, ep: event.ep, link, senderRequest: 0, remote: undefined, copied: false, advertised: request, epoch: link.arrived.epoch, ordinal };
    ctx.host.arrive({
      peer: link.peer,
      context: request.context,
      source: request.source,
      tag: request.tag,
      size: event.transferredLength,
      payload: undefined,
      synchronous: false,
      ready: false,
      deviceState: arrival,
    });
    return link;
  }

  /**
   * `message` matched `request`, which may be advertised or the message may have been written into
   * one: true when that settles it (the request finished, is waiting for the write, or the link
   * failed); false when it goes the usual way (its advertisement withdrawn).
   */
  deliver(message: IncomingMessage, arrival: Arrival, request: RecvRequest): boolean {
    const advertised = request.deviceState;
    if (advertised instanceof AdvertisedRecv) {
      if (this.#adopt(message, arrival, advertised)) return true;
      this.withdraw(request);
    }
    if (arrival.advertised === undefined) return false;
    if (arrival.advertised === request) request.finish(message.source, message.tag, message.size);
    // The sender's count of this tag's messages disagrees with our matching: the data went to the wrong buffer.
    else this.#ctx.failLink(arrival.link, misdirected(arrival.link.peer, message));
    return true;
  }

  /**
   * An RTS matched an advertised receive and is the very message the advertisement names: its
   * sender writes into the receive when the advertisement reaches it (it keeps such RTSs claimable),
   * so wait for that write instead of reading. The two ends decide alike from the same numbers.
   */
  #adopt(message: IncomingMessage, arrival: Arrival, state: AdvertisedRecv): boolean {
    if (arrival.claimable !== true) return false;
    if (arrival.epoch !== state.epoch || arrival.ordinal !== state.ordinal) return false;
    const size = message.size;
    if (!this.#rendezvous.writable(size) || size > state.exposure.triplet.length) return false;
    state.adopted = { source: message.source, tag: message.tag, size };
    // Matched: no longer a posted receive a later one may count on being advertised before it.
    this.#uncount(state);
    return true;
  }

  /** Once per receive: when it is adopted, or withdrawn without having been adopted. */
  #uncount(state: AdvertisedRecv): void {
    const posted = state.link.advertisedPosted;
    const left = (posted.get(state.key) ?? 1) - 1;
    if (left === 0) posted.delete(state.key);
    else posted.set(state.key, left);
  }

  /** An advertised receive matched or was cancelled: close its window. */
  withdraw(request: RecvRequest): void {
    const state = request.deviceState as AdvertisedRecv;
    if (state.withdrawn) return;
    state.withdrawn = true;
    request.deviceState = undefined;
    if (this.#ctx.recvTable.get(request.id) === request) this.#ctx.recvTable.take(request.id);
    this.#windows.release(state.exposure);
    if (state.adopted === undefined) this.#uncount(state);
  }

  /** The REVOKED answer for the oldest receive being taken back on `link`: cancel it if still posted. */
  revoked(link: PeerLink | undefined): void {
    const request = link?.revoking.shift();
    if (request === undefined) return;
    if (this.#ctx.host.cancelPosted(request)) this.withdraw(request);
  }

  /** MPI_Cancel of a receive (see `Device.deferCancel`): an advertised one is first taken back from its sender. */
  deferCancel(request: RecvRequest): boolean {
    const state = request.deviceState;
    if (!(state instanceof AdvertisedRecv) || request.done) return false;
    if (state.revoking) return true;
    if (state.link.failed !== undefined) return false;
    // The sender may be writing into it: ask it to forget the advertisement first (REVOKED answers).
    state.revoking = true;
    state.link.revoking.push(request);
    this.#notice(state.link, 'revoke').add(request, state.epoch, state.ordinal);
    return true;
  }
}

/** The error of a message written into an advertised receive that matching did not give it. */
export function misdirected(peer: number, message: IncomingMessage): MpiError {
  return new MpiError(ErrorClass.ERR_INTERN, `rank ${peer} wrote a message (context ${message.context}, tag ${message.tag}) into an advertised receive that matching did not give it`);
}
