import { DtoStatus, MemAccess, RegistrationCache, type ActiveMessages, type AmCounter, type AmPlacement, type Clock, type Connections, type Endpoint, type EventDispatcher, type Iov, type Lmr } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import { Status } from '../../api/status.js';
import { RequestTable } from '../../adi/request-table.js';
import { SendMode, type IncomingMessage, type RecvRequest, type SendRequest } from '../../adi/requests.js';
import type { BufferSpan } from '../../adi/transfer.js';
import type { DeviceHost } from '../device.js';
import type { DeviceAttachment, PreparedDevice } from '../devices.js';
import { SendsInFlight } from '../sends-in-flight.js';
import { packedBytes, unpackPiece } from '../span-bytes.js';
import { AM_HEADER_BYTES, AmFlag, AmHandler, COUNTER_BASE, emptyAmHeader, readAmHeader, writeAmHeader, type AmHeader } from './am-header.js';
import { PeerPosts } from './peer-posts.js';
import { AM_VARIANTS, type AmVariant } from './variants.js';

/** Where a message's data was placed: the receive's own memory, or an early-arrival buffer of its own. */
interface Placed {
  readonly iov: Iov;
  /** An early-arrival buffer (freed once copied out). */
  readonly early: Uint8Array | undefined;
  readonly lmr: Lmr | undefined;
}

/** A message that arrived (the `deviceState` of its IncomingMessage). */
class AmArrival {
  placed: Placed | undefined = undefined;
  /** Its data is in place. */
  complete = false;
  /** The receive that took it while its data was still coming, or 'discarded'. */
  taker: RecvRequest | 'discarded' | undefined = undefined;
  constructor(
    readonly from: number,
    readonly rendezvous: boolean,
    readonly source: number,
    readonly tag: number,
    readonly size: number,
    readonly senderRequest: number,
  ) {}
}

/** A matched receive waiting for rendezvous data. */
interface RendezvousRecv {
  readonly request: RecvRequest;
  readonly from: number;
  readonly source: number;
  readonly tag: number;
  readonly size: number;
}

const SENTINEL = Symbol('am-device connection sentinel');

/**
 * The am device: MPI-LAPI (Banikazemi, Govindaraju, Blackmore, Panda: "MPI-LAPI: An Efficient
 * Implementation of MPI for IBM RS/6000 SP Systems", §4-§5) over the provider's `active-messages` extension. Every
 * message is one Amsend; matching happens in the header handler, which returns the posted receive's
 * own buffer (the data lands in place) or an early-arrival buffer. Eager up to `mpi.am.eagerLimit`
 * (standard and ready modes), rendezvous (request to send, acknowledgement, data) above it and for
 * synchronous sends — the paper's Table 2. `mpi.am.variant` picks how completion is learnt (variants.ts).
 *
 * Early-arrival memory is bounded: a sender has `unexpectedLimit / (size - 1)` bytes of eager room
 * per peer, given back by the receiver as messages are consumed; a message that finds no room goes by
 * rendezvous, which needs none.
 */
export class AmDevice implements PreparedDevice {
  readonly name = 'am';
  readonly #params: MpiParameters;
  readonly #host: DeviceHost;
  readonly #clock: Clock;
  readonly #variant: AmVariant;
  readonly #eagerLimit: number;
  readonly #sends = new RequestTable<SendRequest>();
  readonly #receives = new RequestTable<RendezvousRecv>();
  readonly #lost = new Map<number, MpiError>();
  readonly #in: AmHeader = emptyAmHeader();
  readonly #out: AmHeader = emptyAmHeader();
  #am: ActiveMessages | undefined;
  #a: DeviceAttachment | undefined;
  #posts: PeerPosts | undefined;
  #cache: RegistrationCache | undefined;
  #targetCounters: AmCounter[] = [];
  /** Eager bytes we may still send each peer, and consumed early-arrival room we owe each peer. */
  #room: number[] = [];
  #owed: number[] = [];
  #roomPerPeer = 0;
  #rank = 0;
  readonly #inFlight = new SendsInFlight();
  readonly #counts = { eagerSends: 0, rendezvousSends: 0, completionHandlers: 0, counterCompletions: 0, predefinedCompletions: 0, creditMessages: 0, earlyArrivals: 0 };
  readonly #unexpected = { bytes: 0, peakBytes: 0 };

  constructor(params: MpiParameters, host: DeviceHost, clock: Clock) {
    this.#params = params;
    this.#host = host;
    this.#clock = clock;
    this.#variant = AM_VARIANTS[params['am.variant']];
    this.#eagerLimit = params['am.eagerLimit'];
  }

  /** One DAT receive per endpoint, never filled: its flush tells us the connection was lost. */
  readonly prepare = (ep: Endpoint): void => {
    const lmr = ep.pz.registerLmr(new Uint8Array(1), MemAccess.LOCAL);
    ep.postRecv([{ lmr, offset: 0, length: 1 }], SENTINEL);
  };

  attach(a: DeviceAttachment): Promise<void> {
    const am = a.ia.extension('active-messages');
    if (am === undefined) {
      throw new MpiError(ErrorClass.ERR_ARG, `mpi.device 'am' needs the provider's active-messages extension; provider ${a.ia.provider.name} has none (use mpi.device rdma or channel)`, { argument: 'mpi.device' });
    }
    this.#a = a;
    this.#am = am;
    const { runtime, connections } = a;
    this.#rank = runtime.rank;
    this.#posts = new PeerPosts(connections);
    this.#cache = new RegistrationCache(connections.pz, this.#params.registrationCache);
    this.#roomPerPeer = Math.floor(this.#params.unexpectedLimit / Math.max(1, runtime.size - 1));
    this.#room = new Array<number>(runtime.size).fill(this.#roomPerPeer);
    this.#owed = new Array<number>(runtime.size).fill(0);
    am.registerHandler(AmHandler.EAGER, this.#onEager);
    am.registerHandler(AmHandler.REQUEST_TO_SEND, this.#onRequestToSend);
    am.registerHandler(AmHandler.ACKNOWLEDGED, this.#onAcknowledged);
    am.registerHandler(AmHandler.DATA, this.#onData);
    am.registerHandler(AmHandler.CREDIT, this.#onCredit);
    if (this.#variant.dataByCounter) for (let r = 0; r < runtime.size; r++) this.#targetCounters.push(am.createCounter(COUNTER_BASE + r));
    connections.evds.recv.setNotify(this.#onRecvEvents);
    return Promise.resolve();
  }

  // ---- sending ------------------------------------------------------------------------------

  send(request: SendRequest): void {
    const lost = this.#lost.get(request.peer);
    if (lost !== undefined) return request.fail(lost);
    this.#inFlight.track(request);
    const size = request.data.size;
    // Table 2: standard and ready modes eager up to the limit; synchronous, larger and (beyond the paper) those finding no early-arrival room by rendezvous.
    if (request.mode !== SendMode.SYNCHRONOUS && size <= this.#eagerLimit && this.#room[request.peer] >= size) return this.#eager(request);
    this.#requestToSend(request);
  }

  drain(): Promise<void> {
    return this.#inFlight.drain();
  }

  /** Eager_send: one Amsend with the data; the send is complete when LAPI's origin counter says the buffer is free. */
  #eager(request: SendRequest): void {
    this.#counts.eagerSends++;
    this.#room[request.peer] -= request.data.size;
    this.#sendWithData(request, AmHandler.EAGER, 0);
  }

  #sendWithData(request: SendRequest, handler: number, receiverRequest: number): void {
    const uhdr = this.#header(request, 0, receiverRequest);
    const { iov, temporary } = this.#source(request.data);
    const am = this.#am!;
    const origin = am.createCounter();
    const target = this.#variant.dataByCounter ? COUNTER_BASE + this.#rank : undefined;
    this.#posts!.with(request.peer, (ep) => {
      if (ep instanceof Error) return this.#failSend(request, ep);
      try {
        am.amsend(ep, handler, uhdr, iov, { origin, target });
      } catch (error) {
        temporary?.free();
        return this.#failSend(request, error as Error);
      }
      origin.wait(1).then(
        () => {
          temporary?.free();
          if (!request.done) request.complete(Status.EMPTY);
        },
        (error: unknown) => this.#failSend(request, error as Error),
      );
    });
  }

  /** Request_to_send: the envelope alone; the data goes when the receiver acknowledges. */
  #requestToSend(request: SendRequest): void {
    this.#counts.rendezvousSends++;
    request.id = this.#sends.add(request);
    const uhdr = this.#header(request, request.id, 0);
    this.#post(request.peer, AmHandler.REQUEST_TO_SEND, uhdr, (error) => {
      if (this.#sends.take(request.id) !== undefined) this.#failSend(request, error);
    });
  }

  /** An Amsend without data (request to send, acknowledgement, credit), in order with the peer's others. */
  #post(peer: number, handler: number, uhdr: Uint8Array, failed?: (error: Error) => void): void {
    const am = this.#am!;
    this.#posts!.with(peer, (ep) => {
      if (ep instanceof Error) return failed?.(ep);
      try {
        am.amsend(ep, handler, uhdr, NO_DATA);
      } catch (error) {
        failed?.(error as Error);
      }
    });
  }

  /** The user header of a send (a fresh copy: a post may wait for the connection). */
  #header(request: SendRequest, senderRequest: number, receiverRequest: number): Uint8Array {
    const h = this.#out;
    h.context = request.context;
    h.source = request.source;
    h.tag = request.tag;
    h.size = request.data.size;
    h.senderRequest = senderRequest;
    h.receiverRequest = receiverRequest;
    h.flags = (request.mode === SendMode.READY ? AmFlag.READY : 0) | (request.mode === SendMode.SYNCHRONOUS ? AmFlag.SYNC : 0);
    h.from = this.#rank;
    return encode(h);
  }

  /** The data as an iov LAPI copies from at the call: the user's memory when contiguous, else a packed copy. */
  #source(span: BufferSpan): { iov: Iov; temporary: Lmr | undefined } {
    if (span.size === 0) return { iov: NO_DATA, temporary: undefined };
    const bytes = packedBytes(span, this.#clock);
    if (span.program.contiguous) return { iov: [{ lmr: this.#cache!.lmrFor(bytes), offset: bytes.byteOffset, length: bytes.length }], temporary: undefined };
    const lmr = this.#cache!.registerTemporary(bytes);
    return { iov: [{ lmr, offset: 0, length: bytes.length }], temporary: lmr };
  }

  #failSend(request: SendRequest, error: Error): void {
    if (!request.done) request.fail(error instanceof MpiError ? error : lostPeer(request.peer, error));
  }

  // ---- header handlers (at the target, as the first packet arrives) -------------------------

  /** Eager_hdr_hdl: match; the posted receive's buffer, or an early-arrival buffer. */
  readonly #onEager = (uhdr: Uint8Array): AmPlacement | undefined => {
    const h = this.#in;
    readAmHeader(uhdr, h);
    const arrival = new AmArrival(h.from, false, h.source, h.tag, h.size, 0);
    const request = this.#host.takePosted(h.context, h.source, h.tag);
    if (request !== undefined) {
      arrival.taker = request;
      arrival.placed = this.#direct(request.data, h.size) ?? this.#earlyArrival(h.size);
    } else {
      arrival.placed = this.#earlyArrival(h.size);
      this.#host.arriveUnexpected(incoming(h, arrival));
    }
    return this.#placement(arrival.placed.iov, h.from, () => this.#eagerIn(arrival));
  };

  /** Request_to_send_hdr_hdl: a matched receive is acknowledged from the completion handler (no Amsend in a header handler). */
  readonly #onRequestToSend = (uhdr: Uint8Array): AmPlacement | undefined => {
    const h = this.#in;
    readAmHeader(uhdr, h);
    const request = this.#host.takePosted(h.context, h.source, h.tag);
    if (request === undefined) {
      this.#host.arriveUnexpected(incoming(h, new AmArrival(h.from, true, h.source, h.tag, h.size, h.senderRequest)));
      return undefined;
    }
    const id = this.#receives.add({ request, from: h.from, source: h.source, tag: h.tag, size: h.size });
    const from = h.from;
    const senderRequest = h.senderRequest;
    return this.#completion(NO_DATA, () => this.#acknowledge(from, senderRequest, id));
  };

  /** Request_to_send_acked_hdr_hdl (at the sender): the data goes from the completion handler. */
  readonly #onAcknowledged = (uhdr: Uint8Array): AmPlacement | undefined => {
    const h = this.#in;
    readAmHeader(uhdr, h);
    const request = this.#sends.take(h.senderRequest);
    if (request === undefined) return undefined;
    // Nobody will receive it (its communicator was freed at the receiver): the send is over.
    if (h.receiverRequest === 0) {
      request.complete(Status.EMPTY);
      return undefined;
    }
    const receiverRequest = h.receiverRequest;
    return this.#completion(NO_DATA, () => this.#sendWithData(request, AmHandler.DATA, receiverRequest));
  };

  /** The rendezvous data: straight into the matched receive's buffer. */
  readonly #onData = (uhdr: Uint8Array): AmPlacement | undefined => {
    const h = this.#in;
    readAmHeader(uhdr, h);
    const state = this.#receives.take(h.receiverRequest);
    if (state === undefined) {
      // Its receive failed meanwhile: the data still needs somewhere to land.
      const sink = this.#earlyArrival(h.size);
      return this.#placement(sink.iov, h.from, () => sink.lmr?.free());
    }
    const placed = this.#direct(state.request.data, h.size) ?? this.#earlyArrival(h.size);
    return this.#placement(placed.iov, h.from, () => {
      this.#copyOut(placed, state.request);
      state.request.finish(state.source, state.tag, state.size);
    });
  };

  readonly #onCredit = (uhdr: Uint8Array): undefined => {
    const h = this.#in;
    readAmHeader(uhdr, h);
    this.#room[h.from] += h.size;
    return undefined;
  };

  /**
   * Where data lands and how its arrival is learnt: a completion handler, (Counters) the source's
   * target counter, or (Enhanced) LAPI's predefined completion.
   */
  #placement(iov: Iov, from: number, done: () => void): AmPlacement {
    if (this.#variant.dataBySignal) {
      this.#counts.predefinedCompletions++;
      return { iov, signal: done };
    }
    if (!this.#variant.dataByCounter) return this.#completion(iov, done);
    this.#counts.counterCompletions++;
    this.#targetCounters[from].wait(1).then(done, () => undefined);
    return { iov };
  }

  #completion(iov: Iov, done: () => void): AmPlacement {
    this.#counts.completionHandlers++;
    return { iov, completion: done, inContext: this.#variant.inContext };
  }

  /** The receive's own memory, when the data fits it in one piece. */
  #direct(span: BufferSpan, size: number): Placed | undefined {
    if (size === 0) return { iov: NO_DATA, early: undefined, lmr: undefined };
    if (!span.program.contiguous || size > span.size) return undefined;
    const start = span.bytes.byteOffset + span.offset + span.program.minOffset;
    return { iov: [{ lmr: this.#cache!.lmrFor(span.bytes), offset: start, length: size }], early: undefined, lmr: undefined };
  }

  #earlyArrival(size: number): Placed {
    if (size === 0) return { iov: NO_DATA, early: undefined, lmr: undefined };
    this.#counts.earlyArrivals++;
    const early = new Uint8Array(size);
    const lmr = this.#cache!.registerTemporary(early);
    return { iov: [{ lmr, offset: 0, length: size }], early, lmr };
  }

  /** Data placed in an early-arrival buffer goes into the receive (cut to its capacity); the buffer is freed. */
  #copyOut(placed: Placed, request: RecvRequest): void {
    if (placed.early === undefined) return;
    unpackPiece(request.data, placed.early, 0, this.#clock);
    placed.lmr?.free();
  }

  /** Eager_cmpl_hdl: the message is COMPLETE; a receive that took it finishes now. */
  #eagerIn(arrival: AmArrival): void {
    arrival.complete = true;
    const taker = arrival.taker;
    if (taker === undefined) return;
    if (taker === 'discarded') arrival.placed?.lmr?.free();
    else {
      this.#copyOut(arrival.placed!, taker);
      taker.finish(arrival.source, arrival.tag, arrival.size);
    }
    this.#consumed(arrival.from, arrival.size);
  }

  #acknowledge(from: number, senderRequest: number, receiverRequest: number): void {
    const h = this.#out;
    h.context = h.source = h.tag = h.size = h.flags = 0;
    h.senderRequest = senderRequest;
    h.receiverRequest = receiverRequest;
    h.from = this.#rank;
    this.#post(from, AmHandler.ACKNOWLEDGED, encode(h), (error) => {
      const state = this.#receives.take(receiverRequest);
      if (state !== undefined && !state.request.done) state.request.fail(lostPeer(from, error));
    });
  }

  /** Eager room a consumed message held: given back to its sender once half the room is owed. */
  #consumed(from: number, size: number): void {
    if (size === 0) return;
    this.#owed[from] += size;
    if (this.#owed[from] < Math.max(1, this.#roomPerPeer >> 1)) return;
    const h = this.#out;
    h.context = h.source = h.tag = h.flags = h.senderRequest = h.receiverRequest = 0;
    h.size = this.#owed[from];
    h.from = this.#rank;
    this.#owed[from] = 0;
    this.#counts.creditMessages++;
    this.#post(from, AmHandler.CREDIT, encode(h));
  }

  // ---- the ADI's calls ----------------------------------------------------------------------

  deliver(message: IncomingMessage, request: RecvRequest): void {
    const arrival = message.deviceState as AmArrival;
    if (arrival.rendezvous) {
      const id = this.#receives.add({ request, from: arrival.from, source: message.source, tag: message.tag, size: message.size });
      return this.#acknowledge(arrival.from, arrival.senderRequest, id);
    }
    this.#unexpected.bytes -= message.size;
    arrival.taker = request;
    if (arrival.complete) {
      arrival.complete = false;
      this.#eagerIn(arrival);
    }
  }

  keep(message: IncomingMessage): void {
    if ((message.deviceState as AmArrival).rendezvous) return;
    const u = this.#unexpected;
    u.bytes += message.size;
    if (u.bytes > u.peakBytes) u.peakBytes = u.bytes;
  }

  receivePosted(): void {}

  deferCancel(): boolean {
    return false;
  }

  discard(message: IncomingMessage): void {
    const arrival = message.deviceState as AmArrival;
    if (arrival.rendezvous) return this.#acknowledge(arrival.from, arrival.senderRequest, 0);
    this.#unexpected.bytes -= message.size;
    arrival.taker = 'discarded';
    if (arrival.complete) this.#eagerIn(arrival);
  }

  // ---- failures, information ----------------------------------------------------------------

  readonly #onRecvEvents = (evd: EventDispatcher): void => {
    for (let event = evd.dequeue(); event !== undefined; event = evd.dequeue()) {
      if (event.type !== 'dto-completion' || event.cookie !== SENTINEL || event.status === DtoStatus.SUCCESS) continue;
      const peer = this.#a?.connections.peerOf(event.ep);
      if (peer !== undefined) this.#peerLost(peer, new Error(`the connection to rank ${peer} was lost (${event.ep.state})`));
    }
  };

  #peerLost(peer: number, cause: Error): void {
    if (this.#lost.has(peer)) return;
    const error = lostPeer(peer, cause);
    this.#lost.set(peer, error);
    for (const request of this.#sends.values()) {
      if (request.peer === peer) {
        this.#sends.take(request.id);
        request.fail(error);
      }
    }
    for (const state of this.#receives.values()) if (state.from === peer && !state.request.done) state.request.fail(error);
    this.#host.peerFailed(peer, error);
  }

  protocolInfo(): string[] {
    const provider = this.#a?.ia.provider.name ?? '?';
    const eager = this.#eagerLimit;
    return [
      `mpi: device am (MPI-LAPI, ${this.#params['am.variant']}: ${this.#variant.description}) on provider ${provider}: matching in the header handler`,
      `mpi: 0..${eager} B, standard and ready modes: eager (one Amsend, into the posted receive's buffer or an early-arrival buffer; ${this.#roomPerPeer} B of early-arrival room per peer, rendezvous when none is left)`,
      `mpi: ${eager + 1}.. B, and synchronous mode at every size: rendezvous (request to send; the acknowledgement from a completion handler; the data into the receive's buffer)`,
    ];
  }

  counters(): Readonly<Record<string, number>> {
    const u = this.#unexpected;
    return { ...this.#counts, unexpectedBytes: u.bytes, peakUnexpectedBytes: u.peakBytes, heldMessages: 0, peakHeldMessages: 0, sendsInFlight: this.#inFlight.count };
  }

  close(): Promise<void> {
    const evd = (this.#a?.connections as Connections | undefined)?.evds.recv;
    if (evd !== undefined && !evd.freed) evd.setNotify(undefined);
    this.#cache?.close();
    return Promise.resolve();
  }
}

const NO_DATA: Iov = [];

function encode(h: AmHeader): Uint8Array {
  const bytes = new Uint8Array(AM_HEADER_BYTES);
  writeAmHeader(new DataView(bytes.buffer), h);
  return bytes;
}

function incoming(h: AmHeader, arrival: AmArrival): IncomingMessage {
  return {
    peer: h.from,
    context: h.context,
    source: h.source,
    tag: h.tag,
    size: h.size,
    payload: undefined,
    synchronous: (h.flags & AmFlag.SYNC) !== 0,
    ready: (h.flags & AmFlag.READY) !== 0,
    deviceState: arrival,
  };
}

function lostPeer(peer: number, cause: Error): MpiError {
  return new MpiError(ErrorClass.ERR_PROC_FAILED, `active messages with rank ${peer} failed: ${cause.message}`, { cause });
}
