import type { Clock, Endpoint } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { Status } from '../../api/status.js';
import { RequestTable } from '../../adi/request-table.js';
import { SendMode, type IncomingMessage, type RecvRequest, type SendRequest } from '../../adi/requests.js';
import type { DeviceHost } from '../device.js';
import type { DeviceAttachment, PreparedDevice } from '../devices.js';
import { SendsInFlight } from '../sends-in-flight.js';
import { packedBytes, unpackPiece } from '../span-bytes.js';
import { ControlFlag, ControlKind, emptyPacket, fillPacket, type ControlPacket, type KeptPacket } from './channel.js';
import { DROP, ReceiveSink, incoming, lostPeer } from './channel-sinks.js';
import { ReceiveAdvertising } from './receive-advertising.js';
import { BulkStream } from './bulk-stream.js';
import { ChannelArrival } from './channel-arrival.js';
import { DatChannel } from './dat-channel.js';
import { FRAME_BYTES } from './frame.js';
import { channelProtocolInfo } from './protocol-info.js';
import { SendSequencer } from './send-sequencer.js';

/**
 * The channel device: MPICH's ch2 protocols (Selvarajan ch. 6) over a `Channel` — short (the data in
 * the control packet), eager (control packet, then the data; buffered at the receiver when
 * unexpected) and rendezvous (request to send, ready to receive, data) — with the thresholds
 * `mpi.channel.shortLimit` and `mpi.channel.eagerLimit`. Synchronous sends go by rendezvous (the
 * sender learns of the match from the ready-to-receive), as in MPI-LAPI's Table 2.
 */
export class ChannelDevice implements PreparedDevice {
  readonly name = 'channel';
  readonly #params: MpiParameters;
  readonly #host: DeviceHost;
  readonly #clock: Clock;
  readonly #channel: DatChannel;
  readonly #sequencer: SendSequencer;
  readonly #shortLimit: number;
  readonly #eagerLimit: number;
  /** Rendezvous data larger than one packet goes on the bulk stream, when there is one (`mpi.channel.bulkStream`). */
  #bulk: BulkStream | undefined;
  /** Receiver-initiated rendezvous on the bulk stream (`mpi.channel.advertise`). */
  #ads: ReceiveAdvertising | undefined;
  readonly #bulkAbove: number;
  readonly #sends = new RequestTable<SendRequest>();
  readonly #receives = new RequestTable<ReceiveSink>();
  /** Unexpected messages held in receive buffers, per peer, oldest first (at most a window of them). */
  readonly #held: IncomingMessage[][] = [];
  readonly #lost = new Map<number, MpiError>();
  readonly #out: ControlPacket = emptyPacket();
  #a: DeviceAttachment | undefined;
  readonly #inFlight = new SendsInFlight();
  readonly #counts = { shortSends: 0, eagerSends: 0, rendezvousSends: 0 };
  readonly #unexpected = { bytes: 0, peakBytes: 0, held: 0, peakHeld: 0 };

  constructor(params: MpiParameters, host: DeviceHost, clock: Clock) {
    this.#params = params;
    this.#host = host;
    this.#clock = clock;
    this.#shortLimit = params['channel.shortLimit'];
    this.#eagerLimit = Math.max(params['channel.eagerLimit'], this.#shortLimit);
    this.#sequencer = new SendSequencer(params['channel.mode'] === 'blocking');
    const packetSize = params['channel.packetSize'];
    this.#bulkAbove = packetSize - FRAME_BYTES;
    if (packetSize < this.#shortLimit + 64) {
      throw new MpiError(ErrorClass.ERR_ARG, `mpi.channel.packetSize ${packetSize} must hold a control packet with mpi.channel.shortLimit ${this.#shortLimit} bytes of data (at least ${this.#shortLimit + 64})`, {
        argument: 'mpi.channel.packetSize',
      });
    }
    this.#channel = new DatChannel(
      { packetSize, buffers: params['channel.buffers'], shortLimit: this.#shortLimit, sendBuffers: params.sendBuffers, registrationCache: params.registrationCache },
      clock,
    );
    this.#channel.setControlHandler(this.#onControl);
    this.#channel.onPeerLost(this.#onPeerLost);
  }

  readonly prepare = (ep: Endpoint, peer: number): void => this.#channel.prepare(ep, peer);

  attach(a: DeviceAttachment): Promise<void> {
    const max = a.ia.query().limits.maxMessageSize;
    if (this.#params['channel.packetSize'] > max) {
      throw new MpiError(ErrorClass.ERR_ARG, `mpi.channel.packetSize ${this.#params['channel.packetSize']} exceeds the provider's largest message (${max} bytes)`, { argument: 'mpi.channel.packetSize' });
    }
    this.#a = a;
    this.#channel.attach(a.connections);
    const setting = this.#params['channel.bulkStream'];
    // auto: on real networks; a simulated provider models the channel copying through its packets.
    if (setting === 'off' || (setting === 'auto' && a.ia.provider.capabilities.inProcess)) return Promise.resolve();
    const bulk = (this.#bulk = new BulkStream(this.#params.registrationCache));
    if (this.#params['channel.advertise'] === 'on') {
      this.#ads = new ReceiveAdvertising({
        host: this.#host,
        bulk,
        eagerLimit: this.#eagerLimit,
        sendControl: (packet, to) => this.#channel.isendControl(packet, to),
        peerBroke: this.#onPeerLost,
        receiveFailed: (_request, peer, cause) => this.#onPeerLost(peer, cause),
        claim: this.#claim,
        usable: (size, synchronous) => !synchronous && size > this.#eagerLimit && this.#onBulk(size),
      });
    }
    return bulk.start({ ia: a.ia, runtime: a.runtime, pz: a.connections.pz, logger: a.logger });
  }

  /** Whether a rendezvous of `size` bytes sends its data on the bulk stream (both ends decide alike). */
  #onBulk(size: number): boolean {
    return this.#bulk !== undefined && size > this.#bulkAbove;
  }

  // ---- sending ------------------------------------------------------------------------------

  send(request: SendRequest): void {
    const lost = this.#lost.get(request.peer);
    if (lost !== undefined) return request.fail(lost);
    this.#inFlight.track(request);
    const size = request.data.size;
    const into = this.#ads?.onSend(request, request.mode === SendMode.SYNCHRONOUS) ?? -1;
    if (into > 0) return this.#advertisedData(request, into);
    if (request.mode === SendMode.SYNCHRONOUS || size > this.#eagerLimit) return this.#requestToSend(request, into === 0 ? ControlFlag.CLAIMABLE : 0);
    if (size <= this.#shortLimit) return this.#short(request);
    this.#eager(request);
  }

  poll(): void {
    this.#channel.poll();
    this.#bulk?.poll();
  }

  drain(): Promise<void> {
    return this.#inFlight.drain();
  }

  #envelope(kind: ControlKind, request: SendRequest): ControlPacket {
    const p = fillPacket(this.#out, kind, request.context, request.source, request.tag, request.data.size, 0, 0);
    p.flags = (request.mode === SendMode.READY ? ControlFlag.READY : 0) | (request.mode === SendMode.SYNCHRONOUS ? ControlFlag.SYNC : 0);
    return p;
  }

  /** Short: the data travels in the control packet, copied into it; the send is complete once it is (ch2's short is always blocking). */
  #short(request: SendRequest): void {
    this.#counts.shortSends++;
    this.#sequencer.start(request.peer, (done) => {
      const packet = this.#envelope(ControlKind.SHORT, request);
      packet.payload = packedBytes(request.data, this.#clock);
      const blocking = this.#sequencer.blocking;
      this.#channel.isendControl(packet, request.peer, (error) => {
        done();
        if (error !== undefined) request.fail(lostPeer(request.peer, error));
        else if (blocking) request.complete(Status.EMPTY);
      });
      if (!blocking && !request.done) request.complete(Status.EMPTY);
    });
  }

  /** Eager: the control packet, then the data from the user's buffer; complete when the data has left. */
  #eager(request: SendRequest): void {
    this.#counts.eagerSends++;
    this.#sequencer.start(request.peer, (done) => {
      this.#channel.isendControl(this.#envelope(ControlKind.EAGER, request), request.peer);
      this.#sendData(request, done);
    });
  }

  #sendData(request: SendRequest, done: () => void): void {
    this.#channel.isendChannel(packedBytes(request.data, this.#clock), request.peer, (error) => {
      done();
      if (error !== undefined) request.fail(lostPeer(request.peer, error));
      else request.complete(Status.EMPTY);
    });
  }

  /** Into a receive the peer advertised: the data on the bulk stream now (before any other bulk send), its packet on the channel. */
  #advertisedData(request: SendRequest, receiverRequest: number): void {
    const peer = request.peer;
    this.#sendBulk(request);
    this.#sequencer.start(peer, (done) => {
      const packet = this.#envelope(ControlKind.ADVERTISED_DATA, request);
      packet.receiverRequest = receiverRequest;
      this.#channel.isendControl(packet, peer, (error) => {
        done();
        if (error !== undefined && !request.done) request.fail(lostPeer(peer, error));
      });
    });
  }

  /** An advertisement came after `request`'s request to send, which its receive adopted (it sends no ready-to-receive): the data now. */
  readonly #claim = (request: SendRequest): boolean => {
    if (this.#sends.take(request.id) === undefined) return false;
    this.#sendBulk(request);
    return true;
  };

  /** `request`'s data as the next bulk message to its peer; the send completes when it has left. */
  #sendBulk(request: SendRequest): void {
    const peer = request.peer;
    this.#bulk!.send(peer, packedBytes(request.data, this.#clock), (error) => {
      if (error !== undefined) request.fail(lostPeer(peer, error));
      else if (!request.done) request.complete(Status.EMPTY);
    });
  }

  /** Rendezvous, first step: the request to send; the data waits for the receiver's ready-to-receive. */
  #requestToSend(request: SendRequest, flags: number): void {
    this.#counts.rendezvousSends++;
    request.id = this.#sends.add(request);
    this.#sequencer.start(request.peer, (done) => {
      const packet = this.#envelope(ControlKind.REQUEST_TO_SEND, request);
      packet.flags |= flags;
      packet.senderRequest = request.id;
      this.#channel.isendControl(packet, request.peer, (error) => {
        done();
        if (error !== undefined && this.#sends.take(request.id) !== undefined) request.fail(lostPeer(request.peer, error));
      });
    });
  }

  /** Rendezvous, last step (the receiver is ready): the data behind a packet naming its receive. */
  #rendezvousData(from: number, senderRequest: number, receiverRequest: number): void {
    const request = this.#sends.take(senderRequest);
    if (request === undefined) return;
    this.#ads?.answered(request);
    // Nobody will receive it (its communicator was freed at the receiver): the send is over.
    if (receiverRequest === 0) return request.complete(Status.EMPTY);
    if (this.#onBulk(request.data.size)) {
      this.#ads?.beforeBulkSend(from);
      return this.#sendBulk(request);
    }
    this.#sequencer.start(from, (done) => {
      const packet = this.#envelope(ControlKind.RENDEZVOUS_DATA, request);
      packet.receiverRequest = receiverRequest;
      this.#channel.isendControl(packet, from);
      this.#sendData(request, done);
    });
  }

  // ---- receiving ----------------------------------------------------------------------------

  /** The channel's out-of-band handler: every control packet, as it arrives. True keeps its buffer. */
  readonly #onControl = (packet: ControlPacket, from: number, buffer: KeptPacket): boolean => {
    const ads = this.#ads;
    switch (packet.kind) {
      case ControlKind.SHORT:
        ads?.onArrival(from, packet.context, packet.tag);
        return this.#onShort(packet, from, buffer);
      case ControlKind.EAGER: {
        ads?.onArrival(from, packet.context, packet.tag);
        const request = this.#host.takePosted(packet.context, packet.source, packet.tag);
        if (request !== undefined) {
          ads?.matchedOtherwise(request);
          this.#channel.irecvFromChannel(packet.size, from, new ReceiveSink(request, from, packet.source, packet.tag, packet.size, this.#clock));
          return false;
        }
        const arrival = this.#arrival(from, packet);
        this.#channel.irecvFromChannel(packet.size, from, arrival);
        this.#host.arriveUnexpected(incoming(from, packet, undefined, arrival));
        return false;
      }
      case ControlKind.REQUEST_TO_SEND: {
        const arrival = this.#arrival(from, packet);
        // Only a claimable one may be adopted by an advertised receive (its ordinal set).
        if (ads !== undefined) {
          const ordinal = ads.onArrival(from, packet.context, packet.tag, arrival);
          if ((packet.flags & ControlFlag.CLAIMABLE) !== 0) arrival.ordinal = ordinal;
        }
        this.#host.arrive(incoming(from, packet, undefined, arrival));
        return false;
      }
      case ControlKind.READY_TO_RECEIVE:
        this.#rendezvousData(from, packet.senderRequest, packet.receiverRequest);
        return false;
      case ControlKind.RENDEZVOUS_DATA: {
        const sink = packet.receiverRequest === 0 ? undefined : this.#receives.take(packet.receiverRequest);
        this.#channel.irecvFromChannel(packet.size, from, sink ?? DROP);
        return false;
      }
      case ControlKind.ADVERTISE:
        ads?.onAdvertise(from, packet);
        return false;
      case ControlKind.ADVERTISED_DATA:
        ads?.onAdvertisedData(from, packet, ads.onArrival(from, packet.context, packet.tag));
        return false;
      case ControlKind.REVOKE:
        ads?.onRevoke(from, packet);
        return false;
      case ControlKind.REVOKED:
        ads?.onRevoked(from, packet);
        return false;
      default:
        this.#onPeerLost(from, new Error(`rank ${from} sent a control packet of unknown kind ${String(packet.kind)}`));
        return false;
    }
  };

  #onShort(packet: ControlPacket, from: number, buffer: KeptPacket): boolean {
    const request = this.#host.takePosted(packet.context, packet.source, packet.tag);
    if (request !== undefined) {
      this.#ads?.matchedOtherwise(request);
      unpackPiece(request.data, packet.payload!, 0, this.#clock);
      request.finish(packet.source, packet.tag, packet.size);
      return false;
    }
    const arrival = this.#arrival(from, packet);
    arrival.packet = buffer;
    arrival.inHandler = true;
    this.#host.arriveUnexpected(incoming(from, packet, packet.payload, arrival));
    arrival.inHandler = false;
    // `keep` copied it out (the channel re-posts the buffer when we return false), or left it held in its buffer.
    return arrival.packet !== undefined;
  }

  #arrival(from: number, packet: ControlPacket): ChannelArrival {
    return new ChannelArrival(from, packet.kind, packet.source, packet.tag, packet.senderRequest, packet.size, this.#channel, this.#clock, this.#eagerComplete, this.#eagerFailed);
  }

  readonly #eagerComplete = (arrival: ChannelArrival): void => {
    const taker = arrival.taker;
    if (taker !== undefined && taker !== 'discarded') taker.finish(arrival.source, arrival.tag, arrival.size);
  };

  readonly #eagerFailed = (arrival: ChannelArrival, error: Error): void => {
    const taker = arrival.taker;
    if (taker !== undefined && taker !== 'discarded' && !taker.done) taker.fail(lostPeer(arrival.from, error));
  };

  deliver(message: IncomingMessage, request: RecvRequest): void {
    const arrival = message.deviceState as ChannelArrival;
    const ads = this.#ads;
    if (ads !== undefined) {
      if (arrival.ordinal !== 0 && ads.adopt(message, arrival.epoch, arrival.ordinal, request)) return;
      ads.matchedOtherwise(request);
    }
    if (message.payload !== undefined || arrival.packet !== undefined) {
      // SHORT, held in its buffer or copied out.
      arrival.deliverTo(request, message.payload);
      this.#unhold(message, arrival);
      return request.finish(message.source, message.tag, message.size);
    }
    if (this.#isRequestToSend(message)) {
      const sink = new ReceiveSink(request, arrival.from, message.source, message.tag, message.size, this.#clock);
      if (this.#onBulk(message.size)) return this.#receiveBulk(message, arrival, sink);
      this.#readyToReceive(message, arrival.from, arrival.senderRequest, this.#receives.add(sink));
      // Its data will need the sender's credits: whatever of that sender is held must give them back.
      this.#releaseHeld(arrival.from);
      return;
    }
    // Eager: what has arrived goes into the receive, the rest will follow there.
    arrival.deliverTo(request, undefined);
    this.#unhold(message, arrival);
    if (arrival.complete) request.finish(message.source, message.tag, message.size);
  }

  /**
   * Rendezvous on the bulk stream: the receive's memory is posted first (a scratch buffer when it is
   * not one run of bytes, or too small: the data is then unpacked, cut to fit), ready-to-receive after.
   */
  #receiveBulk(message: IncomingMessage, arrival: ChannelArrival, sink: ReceiveSink): void {
    const span = sink.request.data;
    const inPlace = span.program.contiguous && span.size >= message.size;
    const into = inPlace ? packedBytes(span, this.#clock).subarray(0, message.size) : new Uint8Array(message.size);
    const id = this.#receives.add(sink);
    this.#bulk!.receive(
      arrival.from,
      into,
      () => this.#readyToReceive(message, arrival.from, arrival.senderRequest, id),
      (error) => {
        // Gone already: the peer was lost and the receive failed with it.
        if (this.#receives.take(id) === undefined) return;
        if (error !== undefined) return sink.failed(error);
        if (!inPlace) unpackPiece(span, into, 0, this.#clock);
        sink.done();
      },
    );
    this.#releaseHeld(arrival.from);
  }

  #readyToReceive(message: IncomingMessage, to: number, senderRequest: number, receiverRequest: number): void {
    const packet = fillPacket(this.#out, ControlKind.READY_TO_RECEIVE, message.context, message.source, message.tag, message.size, senderRequest, receiverRequest);
    this.#channel.isendControl(packet, to);
  }

  keep(message: IncomingMessage): void {
    if (this.#isRequestToSend(message)) return;
    const arrival = message.deviceState as ChannelArrival;
    const u = this.#unexpected;
    if (this.#host.receivesWaitFor(arrival.from) || u.bytes + message.size <= this.#params.unexpectedLimit) return this.#copyOut(message, arrival);
    (this.#held[arrival.from] ??= []).push(message);
    if (++u.held > u.peakHeld) u.peakHeld = u.held;
  }

  #copyOut(message: IncomingMessage, arrival: ChannelArrival): void {
    if (message.payload !== undefined) {
      message.payload = message.payload.slice();
      this.#clock.chargeCopy(message.size);
      if (arrival.packet !== undefined && !arrival.inHandler) this.#channel.release(arrival.packet);
      arrival.packet = undefined;
      arrival.copied = true;
    } else {
      arrival.copyOut();
    }
    const u = this.#unexpected;
    u.bytes += message.size;
    if (u.bytes > u.peakBytes) u.peakBytes = u.bytes;
  }

  /** A kept message is consumed: off the held list, or out of the unexpected bytes. */
  #unhold(message: IncomingMessage, arrival: ChannelArrival): void {
    if (arrival.copied) {
      this.#unexpected.bytes -= message.size;
      arrival.copied = false;
      return;
    }
    const held = this.#held[arrival.from];
    const at = held === undefined ? -1 : held.indexOf(message);
    if (at >= 0) {
      held!.splice(at, 1);
      this.#unexpected.held--;
    }
  }

  /** Copy out everything held of `peer`: a receive waits on it, and what it waits for may be behind those buffers. */
  #releaseHeld(peer: number): void {
    const held = this.#held[peer];
    if (held === undefined || held.length === 0) return;
    for (const message of held.splice(0)) {
      this.#unexpected.held--;
      this.#copyOut(message, message.deviceState as ChannelArrival);
    }
  }

  receivePosted(peer: number | undefined, request?: RecvRequest): void {
    if (request !== undefined) this.#ads?.advertise(request);
    if (this.#unexpected.held === 0) return;
    if (peer !== undefined) return this.#releaseHeld(peer);
    for (let p = 0; p < this.#held.length; p++) this.#releaseHeld(p);
  }

  deferCancel(request: RecvRequest): boolean {
    return this.#ads?.deferCancel(request) ?? false;
  }

  discard(message: IncomingMessage): void {
    const arrival = message.deviceState as ChannelArrival;
    // Let the sender finish: a ready-to-receive naming no receive.
    if (this.#isRequestToSend(message)) return this.#readyToReceive(message, arrival.from, arrival.senderRequest, 0);
    this.#unhold(message, arrival);
    arrival.drop();
  }

  #isRequestToSend(message: IncomingMessage): boolean {
    return message.payload === undefined && (message.deviceState as ChannelArrival).kind === ControlKind.REQUEST_TO_SEND;
  }

  // ---- failures, information ----------------------------------------------------------------

  readonly #onPeerLost = (peer: number, cause: Error): void => {
    if (this.#lost.has(peer)) return;
    const error = lostPeer(peer, cause);
    this.#lost.set(peer, error);
    for (const request of this.#sends.values()) {
      if (request.peer === peer) {
        this.#sends.take(request.id);
        request.fail(error);
      }
    }
    for (const sink of this.#receives.values()) if (sink.from === peer) sink.failed(cause);
    this.#host.peerFailed(peer, error);
  };

  protocolInfo(): string[] {
    return channelProtocolInfo(this.#params, this.#a?.ia.provider.name ?? '?', this.#shortLimit, this.#eagerLimit, this.#bulkAbove, this.#bulk !== undefined, this.#ads !== undefined);
  }

  counters(): Readonly<Record<string, number>> {
    const u = this.#unexpected;
    return {
      ...this.#counts,
      ...this.#channel.counts,
      ...(this.#bulk?.counts ?? { bulkSends: 0, bulkReceives: 0, bulkDeclines: 0 }),
      ...(this.#ads?.counts ?? { advertisedReceives: 0, advertisedSends: 0, claimedSends: 0, adoptedReceives: 0, declinedAdvertisements: 0, revokes: 0 }),
      unexpectedBytes: u.bytes,
      peakUnexpectedBytes: u.peakBytes,
      heldMessages: u.held,
      peakHeldMessages: u.peakHeld,
      sendsInFlight: this.#inFlight.count,
    };
  }

  /** The bulk connections close before the job's (they share its protection zone). */
  closeConnections(): Promise<void> {
    return this.#bulk?.close() ?? Promise.resolve();
  }

  close(): Promise<void> {
    this.#channel.close();
    return this.closeConnections();
  }
}
