import { DtoStatus, EpState, MemAccess, type Clock, type Connections, type DatEvent, type DtoCompletionEvent, type Endpoint, type InterfaceAdapter, type ProtectionZone, type Rmr, type Runtime, type SharedReceiveQueue } from '@dapl/core';
import type { Logger } from 'pino';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { HEADER_BYTES, MessageKind, emptyHeader, readHeader, type Header } from '../../adi/header.js';
import { RequestTable } from '../../adi/request-table.js';
import { SendRequest, type IncomingMessage, type RecvRequest } from '../../adi/requests.js';
import type { Device, DeviceHost } from '../device.js';
import { ImmediateKind, encodeImmediate, immediateKind, immediateValue } from './immediate.js';
import { PeerLinks, type PeerLink } from './peer-link.js';
import { SendSlots, type EagerBuffer, type Slot } from './slot.js';
import type { Arrival } from './arrival.js';
import { UnexpectedData } from './unexpected-data.js';
import { RdmaTransportHook, RdmaTransportPost } from './rdma-transport-hook.js';
import { PeerBells } from './peer-bells.js';
import { RdmaSettings, sendStatus, transportError, type RdmaContext, type RdmaCounts } from './rdma-context.js';
import { EagerProtocol } from './eager-protocol.js';
import { RendezvousProtocol } from './rendezvous-protocol.js';
import { ReceiverInitiated, misdirected } from './receiver-initiated.js';
import { rdmaProtocolInfo } from './protocol-info.js';
import { EagerReceiveBuffers } from './eager-receive-buffers.js';
import { SendsInFlight } from '../sends-in-flight.js';
import { failLink } from './link-failure.js';
import { drainWith, pollEvds } from '../poll-evds.js';
import { BoxSlot, FASTBOX_PAYLOAD } from './fastbox.js';
import { Fastboxes } from './fastbox-protocol.js';
import { DatSender } from './dat-sender.js';

/** KVS key of a rank's doorbell window. */
const BELL_KEY = 'mpi-bell';

export interface RdmaDeviceAttachment {
  readonly ia: InterfaceAdapter;
  readonly connections: Connections;
  readonly runtime: Runtime;
  readonly logger: Logger;
}

/**
 * The rdma device (MVAPICH2 over uDAPL: Chai et al.). It composes the protocols — eager
 * (`eager-protocol.ts`), rendezvous by read or write (`rendezvous-protocol.ts`), receiver-initiated
 * rendezvous (`receiver-initiated.ts`) — over what they share, kept here: each peer's link, the
 * send buffers and credits (the receive buffers, per peer or one shared pool, and the credits their
 * reposts give back are `eager-receive-buffers.ts`), the
 * doorbells, and the dispatch of every completion. Progress is the EVDs' push notification, or a
 * polled wait's `poll()`: a message is matched when it arrives.
 */
export class RdmaDevice implements Device {
  readonly name = 'rdma';
  readonly #params: MpiParameters;
  readonly #host: DeviceHost;
  readonly #clock: Clock;
  readonly #slotBytes: number;
  readonly #links: PeerLinks;
  readonly #buffers: EagerReceiveBuffers;
  readonly #sendTable = new RequestTable<SendRequest>();
  readonly #recvTable = new RequestTable<RecvRequest>();
  /** Decoding has its own header (the sender's is `DatSender`'s): decoding a message may send others. */
  readonly #inHeader: Header = emptyHeader();
  /** Small eager messages through peer memory, where the provider gives it (`mpi.fastbox`). */
  #boxes: Fastboxes | undefined;
  /** Endpoints made before attach knew whether there are fastboxes. */
  #earlyEndpoints: { ep: Endpoint; peer: number }[] | undefined = [];
  readonly #bells = new PeerBells(BELL_KEY, (link, error) => this.#failLink(link, error));
  #a: RdmaDeviceAttachment | undefined;
  #rmrs: Rmr[] = [];
  #bellRmr: Rmr | undefined;
  readonly #settings = new RdmaSettings();
  readonly #inFlight = new SendsInFlight();
  /** Options of a doorbell ring, filled per post: nothing to report on success, ours again once sent. */
  readonly #ringOptions = { immediate: 0, suppressCompletion: true, localCompletion: true };
  #closed = false;
  readonly #counts: RdmaCounts = { eagerSends: 0, rendezvousSends: 0, advertisedReceives: 0, receiverInitiatedSends: 0, lateAdvertisements: 0, creditStalls: 0, creditImmediates: 0, bouncedSends: 0, poolExhausted: 0, fastboxSends: 0, fastboxFull: 0 };
  readonly #unexpected: UnexpectedData;
  readonly #eager: EagerProtocol;
  readonly #sender: DatSender;
  readonly #rendezvous: RendezvousProtocol;
  readonly #context: RdmaContext;
  readonly #advertised: ReceiverInitiated;
  /** One-sided communication's direct RDMA (set by `attach`). */
  rdmaTransport: RdmaTransportHook | undefined;

  constructor(params: MpiParameters, host: DeviceHost, clock: Clock) {
    this.#params = params;
    this.#host = host;
    this.#clock = clock;
    this.#slotBytes = HEADER_BYTES + params.eagerLimit;
    this.#links = new PeerLinks(params.credits, (link) => this.#bells.track(link));
    this.#unexpected = new UnexpectedData(params.unexpectedLimit, clock, this.#repost);
    this.#buffers = new EagerReceiveBuffers(params, this.#slotBytes, {
      counts: this.#counts,
      unexpected: this.#unexpected,
      links: () => this.#links.inPeerOrder(),
      link: (peer) => this.#link(peer),
      linkOfEp: (ep) => this.#linkOfEp(ep),
      failLink: (link, error) => this.#failLink(link, error),
      ring: (ep, link, kind, value) => this.#ring(ep, link, kind, value),
      closed: () => this.#closed,
    });
    this.prepare = (ep, peer) => {
      this.#buffers.prepare(ep, peer);
      if (this.#earlyEndpoints !== undefined) this.#earlyEndpoints.push({ ep, peer });
      else this.#boxes?.expect(ep, this.#link(peer));
    };
    this.sharedReceiveQueue = this.#buffers.sharedReceiveQueue;
    const context: RdmaContext = (this.#context = {
      params,
      host,
      clock,
      settings: this.#settings,
      counts: this.#counts,
      sendTable: this.#sendTable,
      recvTable: this.#recvTable,
      link: (peer) => this.#link(peer),
      pump: (link) => this.#sender.pump(link),
      ring: (ep, link, kind, value) => this.#ring(ep, link, kind, value),
      whenBellKnown: (link, use) => this.#bells.whenKnown(link, use),
      failLink: (link, error) => this.#failLink(link, error),
      repost: this.#repost,
      arrivedByDat: (link) => this.#arrivedByDat(link),
      takeRmr: () => this.#takeRmr(),
      returnRmr: (rmr) => this.#returnRmr(rmr),
    });
    this.#rendezvous = new RendezvousProtocol(context);
    this.#advertised = new ReceiverInitiated(context, this.#rendezvous);
    this.#eager = new EagerProtocol(context, this.#advertised, this.#unexpected);
    this.#sender = new DatSender(context, this.#eager, this.#rendezvous, this.#advertised, (link) => this.#connect(link));
  }

  /** Connections' `prepare` hook: this peer's receive buffers on a new endpoint. */
  readonly prepare: (ep: Endpoint, peer: number) => void;

  /** Connections' `sharedReceiveQueue` hook: the eager pool's queue, when `mpi.eagerPool` selects one. */
  readonly sharedReceiveQueue: (ia: InterfaceAdapter, pz: ProtectionZone) => SharedReceiveQueue | undefined;

  /** Bind to the job: send buffers and doorbell (a peer's is read from the KVS when the peer is first used). Collective. */
  async attach(a: RdmaDeviceAttachment): Promise<void> {
    this.#a = a;
    const { ia, connections, runtime } = a;
    const attrs = ia.query();
    const p = this.#params;
    if (p.eagerLimit + HEADER_BYTES > attrs.limits.maxMessageSize) {
      throw new MpiError(ErrorClass.ERR_ARG, `mpi.eagerLimit ${p.eagerLimit} plus the ${HEADER_BYTES}-byte header exceeds the provider's largest message (${attrs.limits.maxMessageSize} bytes)`, { argument: 'mpi.eagerLimit' });
    }
    const s = this.#settings;
    s.configure(p, attrs, connections.pz, this.#clock);
    this.#sender.attach(new SendSlots(connections.pz, p.sendBuffers, this.#slotBytes));
    const peerMemory = p.fastbox && p.eagerLimit > 0 ? ia.extension('peer-memory') : undefined;
    if (Fastboxes.usable(peerMemory)) this.#boxes = new Fastboxes(peerMemory, this.#context, this.#eager, a.logger);
    for (const { ep, peer } of this.#earlyEndpoints!) this.#boxes?.expect(ep, this.#link(peer));
    this.#earlyEndpoints = undefined;
    this.rdmaTransport = new RdmaTransportHook(connections, s.cache!, attrs.capabilities.includes('rdma-read'), s.chunk);
    // The doorbell: a 0-byte window peers ring with immediates (8 bytes registered; nothing is written).
    const bell = connections.pz.registerLmr(new Uint8Array(8), MemAccess.ALL);
    this.#bellRmr = connections.pz.createRmr();
    const t = this.#bellRmr.bind(bell, 0, 8, MemAccess.REMOTE_WRITE);
    await this.#bells.publish(runtime, t);
    connections.evds.recv.setNotify(drainWith(this.#onRecvEvent));
    connections.evds.request.setNotify(drainWith(this.#onRequestEvent));
  }

  // ---- sending ------------------------------------------------------------------------------

  send(request: SendRequest): void {
    const link = this.#link(request.peer);
    if (link.failed !== undefined) return request.fail(link.failed);
    // Nothing queued ahead of it: a small message may take a fastbox.
    if (link.outbound !== undefined && link.backlogSize === 0 && this.#boxes!.send(link, request)) {
      // A synchronous send waits for the receiver's acknowledgement.
      if (!request.done) this.#inFlight.track(request);
      return;
    }
    const wire = this.#eager.bounce(request) ?? request;
    this.#inFlight.track(wire);
    // Nothing queued ahead of it on a connected link: it goes (or waits) without a trip through the backlog.
    if (link.backlogSize === 0 && link.ready && link.sendEp!.state === EpState.CONNECTED) {
      if (!this.#sender.sendNow(link, wire)) link.push(wire);
      return;
    }
    link.push(wire);
    this.#sender.pump(link);
  }

  drain(): Promise<void> {
    return this.#inFlight.drain();
  }

  pendingSends(): SendRequest[] {
    const queued = this.#links.inPeerOrder().flatMap((link) => link.backlog().filter((item): item is SendRequest => item instanceof SendRequest && !item.done));
    return [...queued, ...this.#sendTable.values().filter((r) => !r.done)];
  }

  #connect(link: PeerLink): void {
    if (link.ready || link.connecting || this.#a === undefined) return;
    link.connecting = true;
    this.#a.connections.endpoint(link.peer).then(
      (ep) => {
        link.connecting = false;
        link.ready = true;
        link.sendEp = ep;
        link.outbound = this.#boxes?.outbound(ep);
        this.#sender.pump(link);
      },
      (error: unknown) => {
        link.connecting = false;
        this.#failLink(link, new MpiError(ErrorClass.ERR_PROC_FAILED, `cannot connect to rank ${link.peer}: ${String(error)}`, { cause: error }));
      },
    );
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

  poll(): void {
    const evds = this.#a?.connections.evds;
    if (evds === undefined) return;
    this.#advertised.flush();
    this.#boxes?.poll();
    pollEvds(evds.recv, evds.request, this.#onRecvEvent, this.#onRequestEvent);
  }

  readonly #onRecvEvent = (event: DatEvent): void => {
    if (this.#buffers.onQueueEvent(event) || event.type !== 'dto-completion') return;
    try {
      if (event.op === 'recv-immediate') this.#onImmediate(event);
      else if (event.op === 'recv') this.#onSlotFilled(event);
    } catch (error) {
      this.#failedInProgress(event, error);
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
    const link = this.#buffers.linkOf(slot, event);
    if (link === undefined) return;
    if (event.status !== DtoStatus.SUCCESS) {
      // What the peer put in its fastboxes before the connection went is still for us.
      this.#boxes?.drain(link);
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
      if (stalled) this.#sender.pump(link);
    }
    // Boxes the peer wrote before this message are delivered first; those after it wait for it.
    this.#arrivedByDat(link);
    this.#onMessage(h, slot, event.ep, link);
    this.#boxes?.drain(link);
  }

  /** A message in receive buffer `slot`, its header decoded into `h`. */
  #onMessage(h: Header, slot: Slot, ep: Endpoint, link: PeerLink): void {
    switch (h.kind) {
      case MessageKind.EAGER:
      case MessageKind.EAGER_SYNC:
        return this.#eager.arrived(h, slot, ep, link);
      case MessageKind.RTS:
        return this.#rendezvous.arrivedRts(h, slot, ep, link);
      case MessageKind.CTS:
        return this.#rendezvous.arrivedCts(h, slot, ep, link);
      case MessageKind.ADVERTISE: {
        this.#advertised.onAdvertise(h, link, slot.view);
        this.#buffers.repost(slot, ep, link);
        // A send waiting for a credit may be the one this receive takes.
        if (link.backlogSize > 0) this.#sender.pump(link);
        return;
      }
      case MessageKind.REVOKE: {
        this.#advertised.onRevoke(h, link, slot.view, ep);
        this.#buffers.repost(slot, ep, link);
        return;
      }
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
        if (stalled) this.#sender.pump(link);
        return;
      }
      case ImmediateKind.SYNC_ACK:
        this.#sendTable.take(value)?.complete(sendStatus);
        return;
      case ImmediateKind.FIN_READ:
        return this.#rendezvous.finRead(value);
      case ImmediateKind.FIN_WRITE:
        return this.#rendezvous.finWrite(value);
      case ImmediateKind.FIN_ADVERTISED: {
        const link = this.#advertised.arrived(event, value);
        // Boxes written after that message waited for it.
        if (link !== undefined) this.#boxes?.drain(link);
        return;
      }
      case ImmediateKind.REVOKED:
        return this.#advertised.revoked(this.#linkOfEp(event.ep));
    }
  }

  /** See `RdmaContext.arrivedByDat`. */
  #arrivedByDat(link: PeerLink): void {
    this.#boxes?.drain(link);
    link.datArrived++;
  }

  /** A buffer an eager message was read from goes back: a receive buffer to its endpoint, a fastbox to its sender. */
  readonly #repost = (slot: EagerBuffer, ep: Endpoint, link: PeerLink): void => {
    if (slot instanceof BoxSlot) slot.release();
    else this.#buffers.repost(slot, ep, link);
  };

  #linkOfEp(ep: Endpoint): PeerLink | undefined {
    const peer = this.#a?.connections.peerOf(ep);
    return peer === undefined ? undefined : this.#links.get(peer);
  }

  // ---- matched messages ---------------------------------------------------------------------

  deliver(message: IncomingMessage, request: RecvRequest): void {
    const arrival = message.deviceState as Arrival;
    if (this.#advertised.deliver(message, arrival, request)) return;
    if (message.payload !== undefined) return this.#eager.deliverKept(message as IncomingMessage & { payload: Uint8Array }, arrival, request);
    this.#rendezvous.receive(message, arrival, request);
  }

  readonly #onRequestEvent = (event: DatEvent): void => {
    if (event.type !== 'dto-completion') return;
    try {
      this.#onRequestDone(event);
    } catch (error) {
      this.#failedInProgress(event, error);
    }
  };

  #onRequestDone(event: DtoCompletionEvent): void {
    const cookie = event.cookie;
    if (cookie instanceof RdmaTransportPost) return cookie.completed(event);
    const ok = event.status === DtoStatus.SUCCESS;
    if (event.op === 'send') {
      const owner = this.#sender.release(cookie as Slot);
      if (!ok) this.#failEp(event);
      if (owner !== undefined) {
        if (ok) owner.complete(sendStatus);
        else owner.fail(transportError(owner.peer, event));
      }
      this.#sender.resume();
      return;
    }
    if (event.op === 'rdma-read') return this.#rendezvous.readCompleted(event, cookie as RecvRequest);
    if (event.op === 'rdma-write' || event.op === 'rdma-write-immediate') {
      if (cookie instanceof SendRequest) return this.#rendezvous.writeCompleted(event, cookie);
      if (!ok) this.#failEp(event);
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
    if (request !== undefined && this.#settings.advertise && request.peer !== undefined) this.#link(request.peer).advertisedLast = this.#advertised.advertise(request);
    if (request !== undefined) this.#buffers.pool?.expect(this.#host.postedReceives());
    if (this.#unexpected.held === 0) return;
    // A receive waits and matched nothing: what it waits for may be behind buffers held for that
    // peer (whatever their context). Copy those out, beyond the bound, so the peer gets credits and
    // progress is guaranteed; other peers stay held.
    if (peer !== undefined) return this.#unexpected.unhold(this.#links.get(peer));
    for (const link of this.#links.inPeerOrder()) this.#unexpected.unhold(link);
  }

  deferCancel(request: RecvRequest): boolean {
    return this.#advertised.deferCancel(request);
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
    failLink(link, error, this.#sendTable, this.#recvTable, this.#host);
  }

  #link(peer: number): PeerLink {
    return this.#links.of(peer);
  }

  protocolInfo(): string[] {
    return rdmaProtocolInfo(this.#params, this.#a?.ia.provider.name ?? '?', this.#settings, this.#buffers.pool !== undefined, this.#boxes === undefined ? 0 : FASTBOX_PAYLOAD);
  }

  counters(): Readonly<Record<string, number>> {
    const u = this.#unexpected;
    return { ...this.#counts, unexpectedBytes: u.bytes, peakUnexpectedBytes: u.peakBytes, heldMessages: u.held, peakHeldMessages: u.peakHeld, registrations: this.#settings.cache?.registrations ?? 0, sendsInFlight: this.#inFlight.count, poolBuffers: this.#buffers.pool?.buffers ?? 0 };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#boxes?.close();
    const evds = this.#a?.connections.evds;
    for (const evd of evds === undefined ? [] : [evds.recv, evds.request]) if (!evd.freed) evd.setNotify(undefined);
    this.#settings.cache?.close();
  }
}

const NO_DATA: readonly never[] = [];
