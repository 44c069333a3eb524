import { DtoStatus, EpState, MemAccess, RegistrationCache, defer, type Clock, type Connections, type DtoCompletionEvent, type Endpoint, type EventDispatcher, type InterfaceAdapter, type Rmr, type RmrTriplet, type Runtime } from '@dapl/core';
import type { Logger } from 'pino';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { HEADER_BYTES, HeaderFlag, MessageKind, emptyHeader, readHeader, writeHeader, type Header } from '../../adi/header.js';
import { RequestTable } from '../../adi/request-table.js';
import { SendMode, SendRequest, type IncomingMessage, type RecvRequest } from '../../adi/requests.js';
import { Status } from '../../api/status.js';
import { packRange, unpackRange } from '../../datatype/index.js';
import type { Device, DeviceHost } from '../device.js';
import { ImmediateKind, encodeImmediate, immediateKind, immediateValue } from './immediate.js';
import { messageKey } from './message-counter.js';
import { PeerLink, type Outgoing } from './peer-link.js';
import type { Advertisement } from './advertised-receives.js';
import { NoticeBatch, emptyNotice, noticesPerMessage, readNotice, writeNotices } from './receive-notices.js';
import { READ_ACCESS, WRITE_ACCESS, WriteSources, expose, inPlaceStart, receiveRegion, scatterRegion, sendRegion, type Exposure, type RegisteredRegion } from './rendezvous.js';
import { SharedExposures } from './shared-exposures.js';
import { BounceBuffers } from './bounce-buffers.js';
import { byteSpan, type BufferSpan } from '../../adi/transfer.js';
import { makeSlots, type Slot } from './slot.js';
import type { Arrival } from './arrival.js';
import { UnexpectedData } from './unexpected-data.js';
import { RdmaTransportHook, RdmaTransportPost } from './rdma-transport-hook.js';
import { PeerBells } from './peer-bells.js';

/** Blocking sends in flight at once that may be copied (more go zero-copy): concurrent MPI_Sends are few. */
const BOUNCE_BUFFERS = 4;
/** Rendezvous chunks stay below the provider's RDMA limit and a size every provider handles well. */
const MAX_CHUNK = 1 << 30;
/** KVS key of a rank's doorbell window. */
const BELL_KEY = 'mpi-bell';

/** A receive advertised to its sender: its buffer is exposed for the sender's RDMA write. */
class AdvertisedRecv {
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

/** A receive being filled by rendezvous. */
interface RendezvousRecv {
  readonly region: RegisteredRegion;
  readonly arrival: Arrival;
  readonly source: number;
  readonly tag: number;
  /** Bytes that will arrive (the message, cut to the receive's capacity). */
  readonly length: number;
  readonly messageSize: number;
  chunksLeft: number;
  /** Rendezvous by write: the window exposed to the sender. */
  exposure: Exposure | undefined;
}

/** A send whose data waits at the sender (rendezvous). */
interface RendezvousSend {
  region: RegisteredRegion | undefined;
  /** By read: the RMR the receiver reads through. */
  exposure: Exposure | undefined;
  chunksLeft: number;
  /** Kept claimable (in `link.claimable`) as this epoch and ordinal of its context and tag. */
  claimEpoch?: number;
  claimOrdinal?: number;
}

export interface RdmaDeviceAttachment {
  readonly ia: InterfaceAdapter;
  readonly connections: Connections;
  readonly runtime: Runtime;
  readonly logger: Logger;
}

/**
 * The rdma device (MVAPICH2 over uDAPL, the MVAPICH2-over-uDAPL paper (Chai et al.)). Eager: each peer has `credits` pre-registered
 * receive buffers posted for it; a sender copies the message behind a header into one of its own
 * pre-registered send buffers and posts it, spending a credit; re-posted buffers come back as credits
 * piggybacked on headers or, past half the window, as an immediate. Rendezvous: the sender exposes
 * its buffer through an RMR and sends an RTS; the receiver, once matched, RDMA-reads straight into
 * the user's buffer and rings FIN (or, by write, exposes its buffer in a CTS and the sender writes
 * with immediate). Progress is the EVDs' push notification: a message is matched when it arrives.
 */
export class RdmaDevice implements Device {
  readonly name = 'rdma';
  readonly #params: MpiParameters;
  readonly #host: DeviceHost;
  readonly #clock: Clock;
  readonly #slotBytes: number;
  readonly #links: (PeerLink | undefined)[] = [];
  readonly #linksBySlotEp = new Map<Endpoint, PeerLink>();
  readonly #sendTable = new RequestTable<SendRequest>();
  readonly #recvTable = new RequestTable<RecvRequest>();
  /** Decoding and encoding use separate headers: decoding a message may send others (credits unstall a backlog). */
  readonly #inHeader: Header = emptyHeader();
  readonly #inNotice = emptyNotice();
  readonly #outHeader: Header = emptyHeader();
  readonly #waitingForSlots = new Set<PeerLink>();
  readonly #bells = new PeerBells(BELL_KEY, (link, error) => this.#failLink(link, error));
  #a: RdmaDeviceAttachment | undefined;
  #sendSlots: Slot[] = [];
  #cache: RegistrationCache | undefined;
  #rmrs: Rmr[] = [];
  /** Windows of advertised receives, one binding per distinct receive buffer. */
  readonly #advertWindows = new SharedExposures(
    () => this.#takeRmr(),
    (rmr) => this.#returnRmr(rmr),
    WRITE_ACCESS,
  );
  #bellRmr: Rmr | undefined;
  #read = true;
  /** The provider completes a post once its bytes have left (tcp), not on the peer's acknowledgement. */
  #localCompletion = false;
  /** Receives posted before their message are advertised to the sender, which writes into them. */
  #advertise = false;
  #noticesPerMessage = 0;
  #chunk = MAX_CHUNK;
  #maxIov = 1;
  #inFlight = 0;
  #writeSources: WriteSources | undefined;
  /**
   * Options of a rendezvous write, filled per post (the endpoint reads them during the call). A
   * standard, ready or buffered send is complete once its buffer may be reused, so it asks for
   * local completion (on tcp, the socket's write, not the peer's acknowledgement a round trip later);
   * a synchronous one waits for the target.
   */
  readonly #writeOptions: { immediate: number | undefined; localCompletion: boolean } = { immediate: undefined, localCompletion: false };
  /** Options of a doorbell ring, filled per post: nothing to report on success, ours again once sent. */
  readonly #ringOptions = { immediate: 0, suppressCompletion: true, localCompletion: true };
  /** Library buffers of blocking sends that complete before their transfer (see `#bounce`). */
  readonly #bounceBuffers: BounceBuffers;
  #drained: (() => void)[] = [];
  #closed = false;
  readonly #counts = { eagerSends: 0, rendezvousSends: 0, advertisedReceives: 0, receiverInitiatedSends: 0, lateAdvertisements: 0, creditStalls: 0, creditImmediates: 0, bouncedSends: 0 };
  readonly #unexpected: UnexpectedData;
  /** One-sided communication's direct RDMA (set by `attach`). */
  rdmaTransport: RdmaTransportHook | undefined;

  constructor(params: MpiParameters, host: DeviceHost, clock: Clock) {
    this.#params = params;
    this.#host = host;
    this.#clock = clock;
    this.#slotBytes = HEADER_BYTES + params.eagerLimit;
    this.#bounceBuffers = new BounceBuffers(BOUNCE_BUFFERS, params.bounceLimit);
    this.#unexpected = new UnexpectedData(params.unexpectedLimit, clock, (slot, ep, link) => this.#repost(slot, ep, link));
  }

  /** Connections' `prepare` hook: post this peer's receive buffers on a new endpoint before it connects. */
  readonly prepare = (ep: Endpoint, peer: number): void => {
    const link = this.#link(peer);
    const slots = makeSlots(ep.pz, this.#params.credits, this.#slotBytes);
    for (const slot of slots) {
      slot.link = link;
      slot.ep = ep;
      ep.postRecv(slot.post(this.#slotBytes), slot);
    }
    this.#linksBySlotEp.set(ep, link);
  };

  /** Bind to the job: send buffers and doorbell (a peer's is read from the KVS when the peer is first used). Collective. */
  async attach(a: RdmaDeviceAttachment): Promise<void> {
    this.#a = a;
    const { ia, connections, runtime } = a;
    const attrs = ia.query();
    const p = this.#params;
    if (p.eagerLimit + HEADER_BYTES > attrs.limits.maxMessageSize) {
      throw new MpiError(ErrorClass.ERR_ARG, `mpi.eagerLimit ${p.eagerLimit} plus the ${HEADER_BYTES}-byte header exceeds the provider's largest message (${attrs.limits.maxMessageSize} bytes)`, { argument: 'mpi.eagerLimit' });
    }
    const canRead = attrs.capabilities.includes('rdma-read');
    // Auto: read where the provider has it, except where a write completes on the sender as soon as
    // its bytes have left (tcp). There the sender's blocking send is done once the CTS is answered,
    // while by read it waits for the receiver's FIN, and a ping-pong stays in RTS-and-read for good.
    this.#read = p.rendezvous === 'read' || (p.rendezvous === 'auto' && canRead && !attrs.localCompletion);
    this.#localCompletion = attrs.localCompletion;
    if (this.#read && !canRead) throw new MpiError(ErrorClass.ERR_ARG, `mpi.rendezvous is 'read' but provider ${attrs.provider} has no RDMA read`, { argument: 'mpi.rendezvous' });
    this.#chunk = Math.min(MAX_CHUNK, attrs.limits.maxRdmaSize);
    this.#noticesPerMessage = noticesPerMessage(p.eagerLimit);
    this.#advertise = p.receiverInitiated && this.#noticesPerMessage > 0 && attrs.capabilities.includes('rdma-write-immediate');
    this.#maxIov = attrs.limits.maxIov;
    this.#cache = new RegistrationCache(connections.pz, p.registrationCache);
    this.#writeSources = new WriteSources(this.#cache, this.#maxIov, this.#clock);
    this.#sendSlots = makeSlots(connections.pz, p.sendBuffers, this.#slotBytes);
    this.rdmaTransport = new RdmaTransportHook(connections, this.#cache, canRead, this.#chunk);
    // The doorbell: a 0-byte window peers ring with immediates (8 bytes registered; nothing is written).
    const bell = connections.pz.registerLmr(new Uint8Array(8), MemAccess.ALL);
    this.#bellRmr = connections.pz.createRmr();
    const t = this.#bellRmr.bind(bell, 0, 8, MemAccess.REMOTE_WRITE);
    await this.#bells.publish(runtime, t);
    connections.evds.recv.setNotify(this.#onRecvEvents);
    connections.evds.request.setNotify(this.#onRequestEvents);
  }

  // ---- sending ------------------------------------------------------------------------------

  send(request: SendRequest): void {
    const link = this.#link(request.peer);
    if (link.failed !== undefined) return request.fail(link.failed);
    const wire = this.#bounce(request) ?? request;
    this.#inFlight++;
    wire.onDone(this.#sendDone);
    // Nothing queued ahead of it on a connected link: it goes (or waits) without a trip through the backlog.
    if (link.backlogSize === 0 && link.ready && link.sendEp!.state === EpState.CONNECTED) {
      if (!this.#sendNow(link, wire)) link.push(wire);
      return;
    }
    link.push(wire);
    this.#pump(link);
  }

  /**
   * A blocking send (MPI_Send) of a rendezvous size up to `bounceLimit`: copy the message into a
   * library buffer, complete the caller's request now (MPI lets a standard send buffer), and send
   * the copy instead by whichever rendezvous applies. Without it the caller waits for the transfer's
   * remote completion — a round trip — before it can post its next receive, whose advertisement
   * then reaches the peer after the peer's reply has gone by RTS: a ping-pong of 16 KiB on tcp took
   * 3-4x DAT's time. Undefined: send the request itself (no buffer free, or not such a send).
   */
  #bounce(request: SendRequest): SendRequest | undefined {
    if (!request.blocking) return undefined;
    const data = request.data;
    if (data.size <= this.#params.eagerLimit || data.size > this.#params.bounceLimit) return undefined;
    if (request.mode !== SendMode.STANDARD && request.mode !== SendMode.READY) return undefined;
    const buffer = this.#bounceBuffers.take();
    if (buffer === undefined) return undefined;
    const copy = buffer.subarray(0, data.size);
    this.#packCharged(data, copy, 0);
    this.#counts.bouncedSends++;
    const wire = new SendRequest(request.peer, request.context, request.source, request.tag, byteSpan(copy), request.mode);
    wire.onDone(() => this.#bounceBuffers.give(buffer));
    request.complete(sendStatus);
    return wire;
  }

  /** Copy (gather) a span's packed bytes into `out` from `at`, the copy charged to the clock: an eager or a bounced send. */
  #packCharged(span: BufferSpan, out: Uint8Array, at: number): void {
    if (span.size > 0) packRange(span.program, span.count, span.bytes, span.offset, 0, out, at, span.size);
    this.#clock.chargeCopy(span.size);
  }

  readonly #sendDone = (): void => {
    if (--this.#inFlight === 0 && this.#drained.length > 0) for (const resolve of this.#drained.splice(0)) resolve();
  };

  drain(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  pendingSends(): SendRequest[] {
    const queued = this.#links.flatMap((link) => (link === undefined ? [] : link.backlog().filter((item): item is SendRequest => item instanceof SendRequest && !item.done)));
    return [...queued, ...this.#sendTable.values().filter((r) => !r.done)];
  }

  /** Send what the link's credits, its connection and the free send buffers allow, in order. */
  #pump(link: PeerLink): void {
    if (!link.ready) return this.#connect(link);
    if (link.sendEp!.state !== EpState.CONNECTED) return;
    while (link.backlogSize > 0 && this.#sendNow(link, link.peek())) link.shift();
  }

  /**
   * Send `item` if its receive was advertised, or a credit and a free send buffer allow. False: it
   * must wait (the stall is noted). The backlog is the caller's: EVD notifications are deferred, so
   * nothing sent here re-enters the device while `item` is still its head.
   */
  #sendNow(link: PeerLink, item: Outgoing): boolean {
    if (item instanceof SendRequest && link.advertisements.size > 0 && this.#writeAdvertised(link, item)) return true;
    if (link.credits === 0) {
      this.#counts.creditStalls++;
      return false;
    }
    const slot = this.#sendSlots.pop();
    if (slot === undefined) {
      this.#waitingForSlots.add(link);
      return false;
    }
    link.credits--;
    this.#transmit(link, item, slot);
    return true;
  }

  #connect(link: PeerLink): void {
    if (link.ready || link.connecting || this.#a === undefined) return;
    link.connecting = true;
    this.#a.connections.endpoint(link.peer).then(
      (ep) => {
        link.connecting = false;
        link.ready = true;
        link.sendEp = ep;
        this.#pump(link);
      },
      (error: unknown) => {
        link.connecting = false;
        this.#failLink(link, new MpiError(ErrorClass.ERR_PROC_FAILED, `cannot connect to rank ${link.peer}: ${String(error)}`, { cause: error }));
      },
    );
  }

  #transmit(link: PeerLink, item: Outgoing, slot: Slot): void {
    const h = this.#outHeader;
    h.credits = Math.min(link.pendingReturn, 0xffff);
    link.pendingReturn -= h.credits;
    h.flags = 0;
    h.receiverRequest = 0;
    h.targetOffset = 0;
    h.rmrContext = 0n;
    let length = HEADER_BYTES;
    if (item instanceof NoticeBatch) {
      if (link.openAdvertise === item) link.openAdvertise = undefined;
      if (link.openRevoke === item) link.openRevoke = undefined;
      h.kind = item.kind === 'advertise' ? MessageKind.ADVERTISE : MessageKind.REVOKE;
      h.context = 0;
      h.source = 0;
      h.tag = 0;
      h.senderRequest = 0;
      h.size = item.size;
      length += writeNotices(slot.view, item);
    } else if (item instanceof SendRequest) {
      const ordinal = this.#advertise ? link.sent.count(item.context, item.tag) : 0;
      const data = item.data;
      h.context = item.context;
      h.source = item.source;
      h.tag = item.tag;
      h.size = data.size;
      h.senderRequest = 0;
      if (item.mode === SendMode.READY) h.flags |= HeaderFlag.READY;
      if (data.size <= this.#params.eagerLimit) {
        const sync = item.mode === SendMode.SYNCHRONOUS;
        h.kind = sync ? MessageKind.EAGER_SYNC : MessageKind.EAGER;
        if (sync) item.id = h.senderRequest = this.#sendTable.add(item);
        this.#packCharged(data, slot.bytes, HEADER_BYTES);
        length += data.size;
        this.#counts.eagerSends++;
      } else {
        h.kind = MessageKind.RTS;
        item.id = h.senderRequest = this.#sendTable.add(item);
        const state: RendezvousSend = { region: undefined, exposure: undefined, chunksLeft: 0 };
        item.deviceState = state;
        if (this.#read) {
          h.flags |= HeaderFlag.READ;
          state.region = sendRegion(data, data.size, this.#cache!, this.#clock);
          state.exposure = expose(state.region, data.size, this.#takeRmr(), READ_ACCESS);
          h.rmrContext = state.exposure.triplet.rmrContext;
          h.targetOffset = state.exposure.triplet.targetOffset;
        }
        if (item.mode === SendMode.SYNCHRONOUS) h.flags |= HeaderFlag.SYNC;
        this.#counts.rendezvousSends++;
        // The receive it matches may have been advertised too late for us to see: when that
        // advertisement arrives while this RTS is unanswered, we write into the receive after all.
        if (this.#advertise && this.#writable(data.size)) {
          state.claimEpoch = link.sent.epoch;
          state.claimOrdinal = ordinal;
          link.claimable.add(item.context, item.tag, state.claimEpoch, ordinal, item);
          h.flags |= HeaderFlag.CLAIMABLE;
        }
      }
    } else {
      // CTS: the receiver's window for a rendezvous by write.
      const state = item.deviceState as RendezvousRecv;
      h.kind = MessageKind.CTS;
      h.context = item.context;
      h.source = 0;
      h.tag = 0;
      h.size = state.length;
      h.senderRequest = state.arrival.senderRequest;
      h.receiverRequest = item.id;
      h.rmrContext = state.exposure?.triplet.rmrContext ?? 0n;
      h.targetOffset = state.exposure?.triplet.targetOffset ?? 0;
    }
    writeHeader(slot.view, h);
    link.sendEp!.postSend(slot.post(length), slot, LOCAL_COMPLETION);
    if (item instanceof SendRequest && h.kind === MessageKind.EAGER) {
      // Eager data is in our buffer now: a standard, ready or buffered send is complete (MPI allows
      // it). A blocking one may instead wait for its bytes to leave, where the provider says when
      // that is (tcp writes a turn's posts at the end of the turn): what its caller does next then
      // runs after the write. An MPI_Send that acknowledges a window (osu_bw) otherwise waits in
      // the socket behind the next window's receives: 13 us of a 100 us window at 8 B. Not when
      // the caller's last receive from this peer was advertised: its next ones likely are too, the
      // peer can write nothing before their advertisements, and the message rides with them.
      if (item.blocking && this.#localCompletion && !link.advertisedLast) slot.owner = item;
      else item.complete(sendStatus);
    }
  }

  /**
   * Receiver-initiated rendezvous, the sender's side: when the peer advertised the receive that
   * this message will match, write the data straight into it, the FIN in the write's immediate. No
   * RTS, no credit, no wait for the receiver. False: the message goes the usual way.
   */
  #writeAdvertised(link: PeerLink, request: SendRequest): boolean {
    if (!this.#writable(request.data.size)) return false;
    const sent = link.sent;
    const ordinal = sent.nextOrdinal(request.context, request.tag);
    const ad = link.advertisements.take(request.context, request.tag, sent.nextEpoch(ordinal), ordinal);
    if (ad === undefined || request.data.size > ad.length) return false;
    sent.count(request.context, request.tag);
    request.deviceState = { region: undefined, exposure: undefined, chunksLeft: 0 } satisfies RendezvousSend;
    this.#writeAdvertisement(request, link, ad);
    return true;
  }

  /** Write `request`'s message into the advertised receive, its FIN in the write's immediate. */
  #writeAdvertisement(request: SendRequest, link: PeerLink, ad: Advertisement): void {
    this.#counts.receiverInitiatedSends++;
    this.#writeRendezvous(request, link, ad, ad.receiverRequest, ImmediateKind.FIN_ADVERTISED);
  }

  /**
   * A message the sender may write into an advertised receive: above the eager limit (smaller ones
   * go eager) and within one RDMA write (the receiver learns the length from that write). Both
   * ends apply it, with the receive's capacity, before they treat a message as written.
   */
  #writable(size: number): boolean {
    return size > this.#params.eagerLimit && size <= this.#chunk;
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
    this.#sendTable.take(request.id);
    this.#releaseSend(request);
    this.#counts.lateAdvertisements++;
    this.#writeAdvertisement(request, link, ad);
  }

  #takeRmr(): Rmr {
    return this.#rmrs.pop() ?? this.#a!.connections.pz.createRmr();
  }

  #returnRmr(rmr: Rmr): void {
    if (rmr.triplet !== undefined) rmr.unbind();
    this.#rmrs.push(rmr);
  }

  #ring(ep: Endpoint, link: PeerLink, kind: ImmediateKind, value: number): void {
    if (ep.state !== EpState.CONNECTED) return;
    if (link.bell === undefined) return this.#bells.whenKnown(link, () => this.#ring(ep, link, kind, value));
    const options = this.#ringOptions;
    options.immediate = encodeImmediate(kind, value);
    ep.postRdmaWrite(NO_DATA, null, link.bell, options);
  }

  // ---- receiving ----------------------------------------------------------------------------

  readonly #onRecvEvents = (evd: EventDispatcher): void => {
    for (let event = evd.dequeue(); event !== undefined; event = evd.dequeue()) {
      if (event.type !== 'dto-completion') continue;
      try {
        if (event.op === 'recv-immediate') this.#onImmediate(event);
        else if (event.op === 'recv') this.#onSlotFilled(event);
      } catch (error) {
        this.#failedInProgress(event, error);
      }
    }
  };

  /**
   * Handling `event` threw: nothing may throw out of the EVD callback (house rule 4), so the failure
   * becomes an event of its own — the peer's link fails with it, and what waits on that peer ends.
   */
  #failedInProgress(event: DtoCompletionEvent, error: unknown): void {
    const link = this.#linkOfEp(event.ep) ?? (event.cookie as Slot | undefined)?.link;
    const failure = error instanceof MpiError ? error : new MpiError(ErrorClass.ERR_INTERN, `handling a completion from rank ${link?.peer ?? '?'} failed: ${String(error)}`, { cause: error });
    // A defect of ours (or a buffer the program took away): say so, whatever it fails.
    this.#a?.logger.error({ err: error, peer: link?.peer }, 'handling a completion failed; failing the peer link');
    if (link !== undefined) this.#failLink(link, failure);
  }

  #onSlotFilled(event: DtoCompletionEvent): void {
    const slot = event.cookie as Slot;
    const link = slot.link!;
    if (event.status !== DtoStatus.SUCCESS) {
      // Flushed: the connection went away. At close that is ours; before it, the peer is lost to
      // us, and what waits on it must end (the peer's finalize, too, has no receive waiting on it).
      if (event.status !== DtoStatus.FLUSHED) this.#failLink(link, transportError(link.peer, event));
      // (Once per link: a connection flushes all its buffers at once.)
      else if (!this.#closed && link.failed === undefined) this.#failLink(link, new MpiError(ErrorClass.ERR_PROC_FAILED, `the connection to rank ${link.peer} was lost (${event.ep.state})`));
      return;
    }
    const h = this.#inHeader;
    if (!readHeader(slot.view, h)) return this.#failLink(link, new MpiError(ErrorClass.ERR_INTERN, `a message from rank ${link.peer} has an unknown kind`));
    if (h.credits > 0) {
      const stalled = link.credits === 0;
      link.credits += h.credits;
      if (stalled) this.#pump(link);
    }
    const ep = event.ep;
    switch (h.kind) {
      case MessageKind.EAGER:
      case MessageKind.EAGER_SYNC: {
        const ordinal = this.#countArrival(link, h.context, h.tag);
        // The common case: a receive is posted for it. Copy straight from the buffer, with no
        // message record; else it becomes one and joins the unexpected queue.
        const request = this.#host.takePosted(h.context, h.source, h.tag);
        if (request !== undefined) return this.#deliverEager(request, slot, ep, link, h);
        const arrival: Arrival = { slot, ep, link, senderRequest: h.senderRequest, remote: undefined, copied: false, epoch: link.arrived.epoch, ordinal };
        this.#host.arriveUnexpected(incoming(link.peer, h, slot.payload(h.size), arrival));
        return;
      }
      case MessageKind.RTS: {
        const remote = (h.flags & HeaderFlag.READ) !== 0 ? { rmrContext: h.rmrContext, targetOffset: h.targetOffset, length: h.size } : undefined;
        const ordinal = this.#countArrival(link, h.context, h.tag);
        const arrival: Arrival = { slot: undefined, ep, link, senderRequest: h.senderRequest, remote, copied: false, epoch: link.arrived.epoch, ordinal, claimable: (h.flags & HeaderFlag.CLAIMABLE) !== 0 };
        const message = incoming(link.peer, h, undefined, arrival);
        this.#repost(slot, ep, link);
        this.#host.arrive(message);
        return;
      }
      case MessageKind.CTS: {
        const request = this.#sendTable.take(h.senderRequest);
        if (request !== undefined) this.#unclaimable(request);
        const remote = { rmrContext: h.rmrContext, targetOffset: h.targetOffset, length: h.size };
        this.#repost(slot, ep, link);
        if (request !== undefined) this.#writeRendezvous(request, link, remote, h.receiverRequest, ImmediateKind.FIN_WRITE);
        return;
      }
      case MessageKind.ADVERTISE: {
        // Without receiver-initiated rendezvous we count nothing, so cannot tell which message an
        // advertisement names: ignore them (our RTSs are not claimable; the peer reads as usual).
        const sent = link.sent;
        for (let i = 0; this.#advertise && i < h.size; i++) {
          const n = readNotice(slot.view, i, this.#inNotice);
          const ad: Advertisement = { rmrContext: n.rmrContext, targetOffset: n.targetOffset, length: n.capacity, receiverRequest: n.receiverRequest, epoch: n.epoch, ordinal: n.ordinal };
          if (ad.epoch === sent.epoch && ad.ordinal > sent.counted(n.context, n.tag)) link.advertisements.add(n.context, n.tag, ad);
          else this.#claimLate(link, n.context, n.tag, ad);
        }
        this.#repost(slot, ep, link);
        // A send waiting for a credit may be the one this receive takes.
        if (link.backlogSize > 0) this.#pump(link);
        return;
      }
      case MessageKind.REVOKE: {
        // Answer on the endpoint our writes go out on: each answer arrives after any write into its receive.
        const out = link.ready ? link.sendEp! : ep;
        for (let i = 0; i < h.size; i++) {
          const n = readNotice(slot.view, i, this.#inNotice);
          link.advertisements.forgetFrom(n.context, n.tag, n.epoch, n.ordinal);
          this.#ring(out, link, ImmediateKind.REVOKED, n.receiverRequest);
        }
        this.#repost(slot, ep, link);
        return;
      }
    }
  }

  /**
   * An eager message matched `request` on arrival: its data goes from the receive buffer into the
   * request, and the buffer back to the peer (`deliver` with a payload, without the records).
   */
  #deliverEager(request: RecvRequest, slot: Slot, ep: Endpoint, link: PeerLink, h: Header): void {
    // An advertised receive took a message small enough to go eager: its window closes.
    if (request.deviceState instanceof AdvertisedRecv) this.#withdraw(request);
    const size = h.size;
    const unpacked = this.#tryUnpack(request, slot.bytes, HEADER_BYTES, Math.min(size, request.data.size));
    const source = h.source;
    const tag = h.tag;
    const sync = h.kind === MessageKind.EAGER_SYNC;
    const senderRequest = h.senderRequest;
    // Re-posting may pump sends that encode into the other header; ours is read out first.
    this.#repost(slot, ep, link);
    if (sync) this.#ring(ep, link, ImmediateKind.SYNC_ACK, senderRequest);
    if (unpacked === undefined) request.finish(source, tag, size);
    else request.fail(unpacked);
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
    this.#clock.chargeCopy(length);
  }

  /** Messages are counted per (context, tag) only for receiver-initiated rendezvous; 0 without it. */
  #countArrival(link: PeerLink, context: number, tag: number): number {
    return this.#advertise ? link.arrived.count(context, tag) : 0;
  }

  /** Give a receive buffer back to its endpoint, and its credit back to the peer (batched). */
  #repost(slot: Slot, ep: Endpoint, link: PeerLink): void {
    if (ep.state !== EpState.CONNECTED || this.#closed) return;
    ep.postRecv(slot.post(this.#slotBytes), slot);
    if (++link.pendingReturn >= this.#params.credits >>> 1) {
      this.#counts.creditImmediates++;
      this.#ring(ep, link, ImmediateKind.CREDIT, link.pendingReturn);
      link.pendingReturn = 0;
    }
  }

  #onImmediate(event: DtoCompletionEvent): void {
    if (event.status !== DtoStatus.SUCCESS) return;
    const immediate = event.immediate!;
    const value = immediateValue(immediate);
    switch (immediateKind(immediate)) {
      case ImmediateKind.CREDIT: {
        const link = this.#linkOfEp(event.ep);
        if (link === undefined) return;
        const stalled = link.credits === 0;
        link.credits += value;
        if (stalled) this.#pump(link);
        return;
      }
      case ImmediateKind.SYNC_ACK:
        this.#sendTable.take(value)?.complete(sendStatus);
        return;
      case ImmediateKind.FIN_READ: {
        const request = this.#sendTable.take(value);
        if (request === undefined) return;
        this.#unclaimable(request);
        this.#releaseSend(request);
        request.complete(sendStatus);
        return;
      }
      case ImmediateKind.FIN_WRITE: {
        const request = this.#recvTable.take(value);
        if (request === undefined) return;
        this.#finishRendezvousRecv(request, request.deviceState as RendezvousRecv);
        return;
      }
      case ImmediateKind.FIN_ADVERTISED:
        return this.#arrivedAdvertised(event, value);
      case ImmediateKind.REVOKED: {
        const link = this.#linkOfEp(event.ep);
        const request = link?.revoking.shift();
        if (request === undefined) return;
        if (this.#host.cancelPosted(request)) this.#withdraw(request);
        return;
      }
    }
  }

  /** A message was written into an advertised receive: it arrives like any other, its data already in place. */
  #arrivedAdvertised(event: DtoCompletionEvent, id: number): void {
    const request = this.#recvTable.get(id);
    const state = request?.deviceState;
    if (request === undefined || !(state instanceof AdvertisedRecv)) return;
    const adopted = state.adopted;
    if (adopted !== undefined) {
      // Matched earlier by the message's RTS; the data is in place now.
      this.#withdraw(request);
      return request.finish(adopted.source, adopted.tag, adopted.size);
    }
    const link = state.link;
    const ordinal = this.#countArrival(link, request.context, request.tag);
    // The common case: the receive is the oldest that accepts the message, so matching gives it
    // this receive; finish it without building the message and arrival records the general path needs.
    if (this.#host.arriveInto(request)) {
      this.#withdraw(request);
      return request.finish(request.source, request.tag, event.transferredLength);
    }
    const arrival: Arrival = { slot: undefined, ep: event.ep, link, senderRequest: 0, remote: undefined, copied: false, advertised: request, epoch: link.arrived.epoch, ordinal };
    this.#host.arrive({
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
  }

  #linkOfEp(ep: Endpoint): PeerLink | undefined {
    const peer = this.#a?.connections.peerOf(ep);
    return peer === undefined ? undefined : this.#links[peer];
  }

  // ---- matched messages ---------------------------------------------------------------------

  deliver(message: IncomingMessage, request: RecvRequest): void {
    const arrival = message.deviceState as Arrival;
    const advertised = request.deviceState;
    if (advertised instanceof AdvertisedRecv) {
      if (this.#adopt(message, arrival, advertised)) return;
      this.#withdraw(request);
    }
    if (arrival.advertised !== undefined) {
      if (arrival.advertised === request) return request.finish(message.source, message.tag, message.size);
      // The sender's count of this tag's messages disagrees with our matching: the data went to the wrong buffer.
      return this.#failLink(arrival.link, misdirected(arrival.link.peer, message));
    }
    const capacity = request.data.size;
    const length = Math.min(message.size, capacity);
    if (message.payload !== undefined) {
      this.#unpackCharged(request, message.payload, 0, length);
      this.#unexpected.release(message, arrival);
      if (message.synchronous) this.#ring(arrival.ep, arrival.link, ImmediateKind.SYNC_ACK, arrival.senderRequest);
      return request.finish(message.source, message.tag, message.size);
    }
    // Rendezvous: by read, the data may scatter straight into a non-contiguous buffer; by write, it
    // lands in one exposed block.
    const region = arrival.remote !== undefined ? scatterRegion(request.data, length, this.#cache!, this.#maxIov) : receiveRegion(request.data, length, this.#cache!);
    const state: RendezvousRecv = { region, arrival, source: message.source, tag: message.tag, length, messageSize: message.size, chunksLeft: 0, exposure: undefined };
    request.deviceState = state;
    if (arrival.remote !== undefined) return this.#readRendezvous(request, state, arrival.remote);
    // By write: expose the landing zone and send CTS (it needs an eager buffer and a credit).
    request.id = this.#recvTable.add(request);
    if (length > 0) state.exposure = expose(region, length, this.#takeRmr(), WRITE_ACCESS);
    arrival.link.push(request);
    this.#pump(arrival.link);
  }

  #readRendezvous(request: RecvRequest, state: RendezvousRecv, remote: RmrTriplet): void {
    const ep = state.arrival.ep;
    if (state.length === 0) return this.#readDone(request, state);
    let chunks = 0;
    for (let done = 0; done < state.length; done += this.#chunk) chunks++;
    state.chunksLeft = chunks;
    for (let done = 0; done < state.length; done += this.#chunk) {
      const n = Math.min(this.#chunk, state.length - done);
      ep.postRdmaRead(state.region.iov(done, n), request, { rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + done, length: n });
    }
  }

  #readDone(request: RecvRequest, state: RendezvousRecv): void {
    this.#ring(state.arrival.ep, state.arrival.link, ImmediateKind.FIN_READ, state.arrival.senderRequest);
    this.#finishRendezvousRecv(request, state);
  }

  #finishRendezvousRecv(request: RecvRequest, state: RendezvousRecv): void {
    if (state.exposure !== undefined) this.#returnRmr(state.exposure.rmr);
    state.exposure = undefined;
    this.#clock.chargeCopy(state.region.finish(request.data, state.length));
    state.region.release();
    request.finish(state.source, state.tag, state.messageSize);
  }

  #writeRendezvous(request: SendRequest, link: PeerLink, remote: RmrTriplet, receiverRequest: number, fin: ImmediateKind): void {
    const state = request.deviceState as RendezvousSend;
    const length = Math.min(request.data.size, remote.length);
    const ep = link.sendEp!;
    const options = this.#writeOptions;
    options.localCompletion = request.mode !== SendMode.SYNCHRONOUS;
    if (length === 0) {
      // Nothing fits the receive (it is truncated to 0 bytes): ring its FIN on the doorbell.
      state.chunksLeft = 1;
      const { localCompletion } = options;
      return this.#bells.whenKnown(link, (bell) => {
        options.immediate = encodeImmediate(fin, receiverRequest);
        options.localCompletion = localCompletion;
        ep.postRdmaWrite(NO_DATA, request, bell, options);
      });
    }
    const source = this.#writeSources!.of(request.data, length);
    state.region = source;
    let chunks = 0;
    for (let done = 0; done < length; done += this.#chunk) chunks++;
    state.chunksLeft = chunks;
    for (let done = 0; done < length; done += this.#chunk) {
      const n = Math.min(this.#chunk, length - done);
      const last = done + n >= length;
      // The first write targets the remote triplet as it is (its length may exceed the write's).
      const target = done === 0 ? remote : { rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + done, length: n };
      options.immediate = last ? encodeImmediate(fin, receiverRequest) : undefined;
      ep.postRdmaWrite(source.iov(done, n), request, target, options);
    }
  }

  /** The receiver answered this RTS (FIN or CTS): no advertisement can claim it any more. */
  #unclaimable(request: SendRequest): void {
    const state = request.deviceState as RendezvousSend;
    if (state.claimOrdinal === undefined) return;
    this.#links[request.peer]?.claimable.take(request.context, request.tag, state.claimEpoch!, state.claimOrdinal);
    state.claimOrdinal = undefined;
  }

  #releaseSend(request: SendRequest): void {
    const state = request.deviceState as RendezvousSend | undefined;
    if (state === undefined) return;
    if (state.exposure !== undefined) this.#returnRmr(state.exposure.rmr);
    state.exposure = undefined;
    state.region?.release();
    state.region = undefined;
  }

  readonly #onRequestEvents = (evd: EventDispatcher): void => {
    for (let event = evd.dequeue(); event !== undefined; event = evd.dequeue()) {
      if (event.type !== 'dto-completion') continue;
      try {
        this.#onRequestDone(event);
      } catch (error) {
        this.#failedInProgress(event, error);
      }
    }
  };

  #onRequestDone(event: DtoCompletionEvent): void {
    const cookie = event.cookie;
    if (cookie instanceof RdmaTransportPost) return cookie.completed(event);
    const ok = event.status === DtoStatus.SUCCESS;
    if (event.op === 'send') {
      const slot = cookie as Slot;
      const owner = slot.owner;
      slot.owner = undefined;
      this.#sendSlots.push(slot);
      if (!ok) this.#failEp(event);
      if (owner !== undefined) {
        if (ok) owner.complete(sendStatus);
        else owner.fail(transportError(owner.peer, event));
      }
      if (this.#waitingForSlots.size > 0) {
        const waiting = [...this.#waitingForSlots];
        this.#waitingForSlots.clear();
        for (const link of waiting) this.#pump(link);
      }
      return;
    }
    if (event.op === 'rdma-read') {
      const request = cookie as RecvRequest;
      const state = request.deviceState as RendezvousRecv;
      if (!ok) {
        if (!request.done) request.fail(transportError(state.arrival.link.peer, event));
        return;
      }
      if (--state.chunksLeft === 0) this.#readDone(request, state);
      return;
    }
    if (event.op === 'rdma-write' || event.op === 'rdma-write-immediate') {
      if (!(cookie instanceof SendRequest)) {
        if (!ok) this.#failEp(event);
        return;
      }
      const state = cookie.deviceState as RendezvousSend;
      if (!ok) {
        if (!cookie.done) cookie.fail(transportError(cookie.peer, event));
        return;
      }
      if (--state.chunksLeft === 0) {
        this.#releaseSend(cookie);
        cookie.complete(sendStatus);
      }
    }
  }

  // ---- unexpected messages ------------------------------------------------------------------

  keep(message: IncomingMessage): void {
    const arrival = message.deviceState as Arrival;
    if (arrival.advertised !== undefined) return this.#failLink(arrival.link, misdirected(arrival.link.peer, message));
    // While a receive waits on this peer nothing of it is held (receivePosted let it all go), and
    // this message is copied out beyond the bound too.
    this.#unexpected.keep(message, arrival, this.#host.receivesWaitFor(arrival.link.peer));
  }

  receivePosted(peer: number | undefined, request?: RecvRequest): void {
    if (request !== undefined && this.#advertise && request.peer !== undefined) this.#link(request.peer).advertisedLast = this.#advertiseReceive(request);
    if (this.#unexpected.held === 0) return;
    // A receive waits and matched nothing: what it waits for may be behind buffers held for that
    // peer (whatever their context). Copy those out, beyond the bound, so the peer gets credits and
    // progress is guaranteed; other peers stay held.
    if (peer !== undefined) return this.#unexpected.unhold(this.#links[peer]);
    for (const link of this.#links) this.#unexpected.unhold(link);
  }

  /**
   * Receiver-initiated rendezvous: tell the sender about a large receive posted before its message,
   * and which of its messages will match it — the n-th with this context and tag, counted as both
   * ends count. That is certain only when every older posted receive that could take such a message
   * has this source and tag and was advertised too: then they take the messages in post order.
   * Whether it was advertised.
   */
  #advertiseReceive(request: RecvRequest): boolean {
    const peer = request.peer;
    const data = request.data;
    if (peer === undefined || !this.#writable(data.size) || !data.program.contiguous) return false;
    const link = this.#link(peer);
    if (link.failed !== undefined || link.revoking.length > 0) return false;
    const ahead = this.#host.olderRivals(request);
    if (ahead < 0) return false;
    const key = messageKey(request.context, request.tag);
    const advertised = link.advertisedPosted.get(key) ?? 0;
    if (ahead !== advertised) return false;
    const exposure = this.#advertWindows.acquire(this.#cache!.lmrFor(data.bytes), inPlaceStart(data), data.size);
    const ordinal = link.arrived.counted(request.context, request.tag) + ahead + 1;
    request.deviceState = new AdvertisedRecv(link, key, exposure, link.arrived.epoch, ordinal);
    request.id = this.#recvTable.add(request);
    link.advertisedPosted.set(key, advertised + 1);
    this.#notice(link, 'advertise').add(request, link.arrived.epoch, ordinal, exposure.triplet);
    this.#counts.advertisedReceives++;
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
    const batch = new NoticeBatch(kind, this.#noticesPerMessage);
    if (kind === 'advertise') link.openAdvertise = batch;
    else link.openRevoke = batch;
    link.push(batch);
    defer(() => this.#pump(link));
    return batch;
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
    if (!this.#writable(size) || size > state.exposure.triplet.length) return false;
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
  #withdraw(request: RecvRequest): void {
    const state = request.deviceState as AdvertisedRecv;
    if (state.withdrawn) return;
    state.withdrawn = true;
    request.deviceState = undefined;
    if (this.#recvTable.get(request.id) === request) this.#recvTable.take(request.id);
    this.#advertWindows.release(state.exposure);
    if (state.adopted === undefined) this.#uncount(state);
  }

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

  discard(message: IncomingMessage): void {
    const arrival = message.deviceState as Arrival;
    if (message.payload !== undefined) return this.#unexpected.release(message, arrival);
    // A rendezvous request nobody will receive: let the sender finish.
    if (arrival.remote !== undefined) this.#ring(arrival.ep, arrival.link, ImmediateKind.FIN_READ, arrival.senderRequest);
  }

  // ---- failures, counters, close ------------------------------------------------------------

  #failEp(event: DtoCompletionEvent): void {
    const link = this.#linkOfEp(event.ep);
    if (link !== undefined) this.#failLink(link, transportError(link.peer, event));
  }

  #failLink(link: PeerLink, error: MpiError): void {
    if (link.failed !== undefined) return;
    link.failed = error;
    link.openAdvertise = link.openRevoke = undefined;
    for (const item of link.takeBacklog()) if (!(item instanceof NoticeBatch) && !item.done) item.fail(error);
    link.claimable.clear();
    for (const request of this.#sendTable.values()) {
      if (request.peer === link.peer) {
        this.#sendTable.take(request.id);
        request.fail(error);
      }
    }
    // Matched receives still waiting for this peer's data (a CTS or an adopted advertisement).
    for (const request of this.#recvTable.values()) {
      const state = request.deviceState;
      const waitsOnLink = state instanceof AdvertisedRecv ? state.link === link : (state as RendezvousRecv | undefined)?.arrival.link === link;
      if (waitsOnLink && request.handle === undefined) {
        this.#recvTable.take(request.id);
        request.fail(error);
      }
    }
    this.#host.peerFailed(link.peer, error);
  }

  #link(peer: number): PeerLink {
    return (this.#links[peer] ??= this.#bells.track(new PeerLink(peer, this.#params.credits)));
  }

  protocolInfo(): string[] {
    const p = this.#params;
    const provider = this.#a?.ia.provider.name ?? '?';
    const eager = p.eagerLimit;
    return [
      `mpi: device rdma on provider ${provider}: ${p.credits} eager buffers of ${eager} B per peer, ${p.sendBuffers} send buffers`,
      `mpi: 0..${eager} B: eager (copied into a pre-registered buffer, one credit; synchronous mode waits for an ACK)`,
      `mpi: ${eager + 1}.. B: rendezvous by RDMA ${this.#read ? 'read (the receiver pulls into the user buffer, then FIN)' : 'write (CTS with the receiver\'s buffer, the sender writes with immediate)'}`,
      ...(p.bounceLimit > eager
        ? [`mpi: ${eager + 1}..${p.bounceLimit} B by a blocking send (send, rsend): copied into a library buffer, the send complete at once, the copy sent as above`]
        : []),
      ...(this.#advertise
        ? [`mpi: ${eager + 1}.. B into a receive posted before its message (contiguous, named source and tag): receiver-initiated; the receive is advertised and the sender writes into it with immediate, also when its RTS went first`]
        : []),
    ];
  }

  counters(): Readonly<Record<string, number>> {
    const u = this.#unexpected;
    return { ...this.#counts, unexpectedBytes: u.bytes, peakUnexpectedBytes: u.peakBytes, heldMessages: u.held, peakHeldMessages: u.peakHeld, registrations: this.#cache?.registrations ?? 0, sendsInFlight: this.#inFlight };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const evds = this.#a?.connections.evds;
    for (const evd of evds === undefined ? [] : [evds.recv, evds.request]) if (!evd.freed) evd.setNotify(undefined);
    this.#cache?.close();
  }
}

const NO_DATA: readonly never[] = [];
/**
 * Eager buffers and doorbells are ours again once the bytes have left: they ask for local
 * completion, also so that a rendezvous write posted behind them is not held back (an endpoint
 * completes in post order).
 */
const LOCAL_COMPLETION = { localCompletion: true } as const;
/** What a completed send reports (MPI leaves a send's status undefined; ours is the empty one). */
const sendStatus = Status.EMPTY;


function incoming(peer: number, h: Header, payload: Uint8Array | undefined, arrival: Arrival): IncomingMessage {
  return {
    peer,
    context: h.context,
    source: h.source,
    tag: h.tag,
    size: h.size,
    payload,
    synchronous: h.kind === MessageKind.EAGER_SYNC,
    ready: (h.flags & HeaderFlag.READY) !== 0,
    deviceState: arrival,
  };
}

function misdirected(peer: number, message: IncomingMessage): MpiError {
  return new MpiError(ErrorClass.ERR_INTERN, `rank ${peer} wrote a message (context ${message.context}, tag ${message.tag}) into an advertised receive that matching did not give it`);
}

function transportError(peer: number, event: DtoCompletionEvent): MpiError {
  return new MpiError(ErrorClass.ERR_PROC_FAILED, `transfer with rank ${peer} failed: ${event.op} completed with ${event.status}${event.reason === undefined ? '' : ` (${event.reason})`}`);
}
