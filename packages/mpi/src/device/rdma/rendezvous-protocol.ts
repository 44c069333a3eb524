import { DtoStatus, type DtoCompletionEvent, type Endpoint, type RmrTriplet } from '@dapl/core';
import { HeaderFlag, MessageKind, type Header } from '../../adi/header.js';
import { SendMode, type IncomingMessage, type RecvRequest, type SendRequest } from '../../adi/requests.js';
import type { Arrival } from './arrival.js';
import { ImmediateKind, encodeImmediate } from './immediate.js';
import type { PeerLink } from './peer-link.js';
import { READ_ACCESS, WRITE_ACCESS, expose, receiveRegion, scatterRegion, sendRegion, type Exposure, type RegisteredRegion } from './rendezvous.js';
import { countArrival, incoming, sendStatus, transportError, type RdmaContext } from './rdma-context.js';
import type { Slot } from './slot.js';

/** A receive being filled by rendezvous. */
export interface RendezvousRecv {
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
export interface RendezvousSend {
  region: RegisteredRegion | undefined;
  /** By read: the RMR the receiver reads through. */
  exposure: Exposure | undefined;
  chunksLeft: number;
  /** Kept claimable (in `link.claimable`) as this epoch and ordinal of its context and tag. */
  claimEpoch?: number;
  claimOrdinal?: number;
}

const NO_DATA: readonly never[] = [];

/**
 * Rendezvous, for messages above the eager limit (the MVAPICH2-over-uDAPL paper, Chai et al. §3.2):
 * the sender sends a request to send (RTS). By read, the RTS exposes the sender's buffer and the
 * receiver, once matched, reads straight into the user's buffer and rings FIN. By write, the
 * matched receiver exposes its buffer in a clear to send (CTS) and the sender writes with
 * immediate, the FIN in the last write's immediate. Large transfers go in chunks.
 */
export class RendezvousProtocol {
  readonly #ctx: RdmaContext;
  /**
   * Options of a rendezvous write, filled per post (the endpoint reads them during the call). A
   * standard, ready or buffered send is complete once its buffer may be reused, so it asks for
   * local completion (on tcp, the socket's write, not the peer's acknowledgement a round trip later);
   * a synchronous one waits for the target.
   */
  readonly #writeOptions: { immediate: number | undefined; localCompletion: boolean } = { immediate: undefined, localCompletion: false };

  constructor(ctx: RdmaContext) {
    this.#ctx = ctx;
  }

  /**
   * A message the sender may write into an advertised receive: above the eager limit (smaller ones
   * go eager) and within one RDMA write (the receiver learns the length from that write). Both
   * ends apply it, with the receive's capacity, before they treat a message as written.
   */
  writable(size: number): boolean {
    return size > this.#ctx.params.eagerLimit && size <= this.#ctx.settings.chunk;
  }

  /** Fill `h` with the RTS of `request`, its data exposed for reading when rendezvous is by read. */
  encodeRts(h: Header, link: PeerLink, request: SendRequest, ordinal: number): void {
    const { settings, clock } = this.#ctx;
    const data = request.data;
    h.kind = MessageKind.RTS;
    request.id = h.senderRequest = this.#ctx.sendTable.add(request);
    const state: RendezvousSend = { region: undefined, exposure: undefined, chunksLeft: 0 };
    request.deviceState = state;
    if (settings.read) {
      h.flags |= HeaderFlag.READ;
      state.region = sendRegion(data, data.size, settings.cache!, clock);
      state.exposure = expose(state.region, data.size, this.#ctx.takeRmr(), READ_ACCESS);
      h.rmrContext = state.exposure.triplet.rmrContext;
      h.targetOffset = state.exposure.triplet.targetOffset;
    }
    if (request.mode === SendMode.SYNCHRONOUS) h.flags |= HeaderFlag.SYNC;
    this.#ctx.counts.rendezvousSends++;
    // The receive it matches may have been advertised too late for us to see: when that
    // advertisement arrives while this RTS is unanswered, we write into the receive after all.
    if (settings.advertise && this.writable(data.size)) {
      state.claimEpoch = link.sent.epoch;
      state.claimOrdinal = ordinal;
      link.claimable.add(request.context, request.tag, state.claimEpoch, ordinal, request);
      h.flags |= HeaderFlag.CLAIMABLE;
    }
  }

  /** Fill `h` with the CTS of `request`: the receiver's window for a rendezvous by write. */
  encodeCts(h: Header, request: RecvRequest): void {
    const state = request.deviceState as RendezvousRecv;
    h.kind = MessageKind.CTS;
    h.context = request.context;
    h.source = 0;
    h.tag = 0;
    h.size = state.length;
    h.senderRequest = state.arrival.senderRequest;
    h.receiverRequest = request.id;
    h.rmrContext = state.exposure?.triplet.rmrContext ?? 0n;
    h.targetOffset = state.exposure?.triplet.targetOffset ?? 0;
  }

  /** An RTS arrived in `slot`: the buffer goes back at once, the request to send to matching. */
  arrivedRts(h: Header, slot: Slot, ep: Endpoint, link: PeerLink): void {
    const remote = (h.flags & HeaderFlag.READ) !== 0 ? { rmrContext: h.rmrContext, targetOffset: h.targetOffset, length: h.size } : undefined;
    const ordinal = countArrival(this.#ctx.settings, link, h.context, h.tag);
    const arrival: Arrival = { slot: undefined, ep, link, senderRequest: h.senderRequest, remote, copied: false, epoch: link.arrived.epoch, ordinal, claimable: (h.flags & HeaderFlag.CLAIMABLE) !== 0 };
    const message = incoming(link.peer, h, undefined, arrival);
    this.#ctx.repost(slot, ep, link);
    this.#ctx.host.arrive(message);
  }

  /** A CTS arrived in `slot`: write the data of the send it answers into the receiver's window. */
  arrivedCts(h: Header, slot: Slot, ep: Endpoint, link: PeerLink): void {
    const request = this.#ctx.sendTable.take(h.senderRequest);
    if (request !== undefined) this.unclaimable(request);
    const remote = { rmrContext: h.rmrContext, targetOffset: h.targetOffset, length: h.size };
    this.#ctx.repost(slot, ep, link);
    if (request !== undefined) this.write(request, link, remote, h.receiverRequest, ImmediateKind.FIN_WRITE);
  }

  /** An RTS (`message`) matched `request`: read its data, or expose the receive in a CTS. */
  receive(message: IncomingMessage, arrival: Arrival, request: RecvRequest): void {
    const { settings } = this.#ctx;
    const length = Math.min(message.size, request.data.size);
    // By read, the data may scatter straight into a non-contiguous buffer; by write, it lands in one exposed block.
    const region = arrival.remote !== undefined ? scatterRegion(request.data, length, settings.cache!, settings.maxIov) : receiveRegion(request.data, length, settings.cache!);
    const state: RendezvousRecv = { region, arrival, source: message.source, tag: message.tag, length, messageSize: message.size, chunksLeft: 0, exposure: undefined };
    request.deviceState = state;
    if (arrival.remote !== undefined) return this.#read(request, state, arrival.remote);
    // By write: expose the landing zone and send CTS (it needs an eager buffer and a credit).
    request.id = this.#ctx.recvTable.add(request);
    if (length > 0) state.exposure = expose(region, length, this.#ctx.takeRmr(), WRITE_ACCESS);
    arrival.link.push(request);
    this.#ctx.pump(arrival.link);
  }

  #read(request: RecvRequest, state: RendezvousRecv, remote: RmrTriplet): void {
    const ep = state.arrival.ep;
    if (state.length === 0) return this.#readDone(request, state);
    const chunk = this.#ctx.settings.chunk;
    let chunks = 0;
    for (let done = 0; done < state.length; done += chunk) chunks++;
    state.chunksLeft = chunks;
    for (let done = 0; done < state.length; done += chunk) {
      const n = Math.min(chunk, state.length - done);
      ep.postRdmaRead(state.region.iov(done, n), request, { rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + done, length: n });
    }
  }

  #readDone(request: RecvRequest, state: RendezvousRecv): void {
    this.#ctx.ring(state.arrival.ep, state.arrival.link, ImmediateKind.FIN_READ, state.arrival.senderRequest);
    this.#finishRecv(request, state);
  }

  #finishRecv(request: RecvRequest, state: RendezvousRecv): void {
    if (state.exposure !== undefined) this.#ctx.returnRmr(state.exposure.rmr);
    state.exposure = undefined;
    this.#ctx.clock.chargeCopy(state.region.finish(request.data, state.length));
    state.region.release();
    request.finish(state.source, state.tag, state.messageSize);
  }

  /** Write `request`'s data into the peer's window `remote`, `fin` in the last write's immediate. */
  write(request: SendRequest, link: PeerLink, remote: RmrTriplet, receiverRequest: number, fin: ImmediateKind): void {
    const state = request.deviceState as RendezvousSend;
    const length = Math.min(request.data.size, remote.length);
    const ep = link.sendEp!;
    const options = this.#writeOptions;
    options.localCompletion = request.mode !== SendMode.SYNCHRONOUS;
    if (length === 0) {
      // Nothing fits the receive (it is truncated to 0 bytes): ring its FIN on the doorbell.
      state.chunksLeft = 1;
      const { localCompletion } = options;
      return this.#ctx.whenBellKnown(link, (bell) => {
        options.immediate = encodeImmediate(fin, receiverRequest);
        options.localCompletion = localCompletion;
        ep.postRdmaWrite(NO_DATA, request, bell, options);
      });
    }
    const chunk = this.#ctx.settings.chunk;
    const source = this.#ctx.settings.writeSources!.of(request.data, length);
    state.region = source;
    let chunks = 0;
    for (let done = 0; done < length; done += chunk) chunks++;
    state.chunksLeft = chunks;
    for (let done = 0; done < length; done += chunk) {
      const n = Math.min(chunk, length - done);
      const last = done + n >= length;
      // The first write targets the remote triplet as it is (its length may exceed the write's).
      const target = done === 0 ? remote : { rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + done, length: n };
      options.immediate = last ? encodeImmediate(fin, receiverRequest) : undefined;
      ep.postRdmaWrite(source.iov(done, n), request, target, options);
    }
  }

  /** The receiver answered this RTS (FIN or CTS): no advertisement can claim it any more. */
  unclaimable(request: SendRequest): void {
    const state = request.deviceState as RendezvousSend;
    if (state.claimOrdinal === undefined) return;
    this.#ctx.link(request.peer).claimable.take(request.context, request.tag, state.claimEpoch!, state.claimOrdinal);
    state.claimOrdinal = undefined;
  }

  /** A rendezvous send's exposure and registration, given back. */
  releaseSend(request: SendRequest): void {
    const state = request.deviceState as RendezvousSend | undefined;
    if (state === undefined) return;
    if (state.exposure !== undefined) this.#ctx.returnRmr(state.exposure.rmr);
    state.exposure = undefined;
    state.region?.release();
    state.region = undefined;
  }

  /** FIN of a rendezvous by read: the receiver has the data. */
  finRead(senderRequest: number): void {
    const request = this.#ctx.sendTable.take(senderRequest);
    if (request === undefined) return;
    this.unclaimable(request);
    this.releaseSend(request);
    request.complete(sendStatus);
  }

  /** FIN of a rendezvous by write: the sender's data is in our receive. */
  finWrite(receiverRequest: number): void {
    const request = this.#ctx.recvTable.take(receiverRequest);
    if (request === undefined) return;
    this.#finishRecv(request, request.deviceState as RendezvousRecv);
  }

  /** One chunk of a read into `request` completed. */
  readCompleted(event: DtoCompletionEvent, request: RecvRequest): void {
    const state = request.deviceState as RendezvousRecv;
    if (event.status !== DtoStatus.SUCCESS) {
      if (!request.done) request.fail(transportError(state.arrival.link.peer, event));
      return;
    }
    if (--state.chunksLeft === 0) this.#readDone(request, state);
  }

  /** One chunk of a write of `request` completed. */
  writeCompleted(event: DtoCompletionEvent, request: SendRequest): void {
    const state = request.deviceState as RendezvousSend;
    if (event.status !== DtoStatus.SUCCESS) {
      if (!request.done) request.fail(transportError(request.peer, event));
      return;
    }
    if (--state.chunksLeft === 0) {
      this.releaseSend(request);
      request.complete(sendStatus);
    }
  }
}
