import type { Clock } from '@dapl/core';
import { ANY_TAG, ANY_SOURCE } from '../api/constants.js';
import type { MpiError } from '../api/errors.js';
import { Status } from '../api/status.js';
import type { Device, DeviceHost } from '../device/device.js';
import { LINEAR_SCAN_ENTRY_NS, MATCH_NS } from './costs.js';
import { MatchingEngine } from './matching-engine.js';
import { RecvRequest, SendRequest, type IncomingMessage, type SendMode } from './requests.js';
import type { BufferSpan } from './transfer.js';

interface ProbeWaiter {
  readonly context: number;
  readonly source: number;
  readonly tag: number;
  /** World rank of `source`; undefined for ANY_SOURCE. */
  readonly peer: number | undefined;
  readonly resolve: (status: Status) => void;
  readonly reject: (error: MpiError) => void;
}

/** Receives naming one peer that are posted and not yet complete, and the one listener that uncounts them (none made per receive). */
class PeerReceives {
  count = 0;
  readonly uncount = (): void => void this.count--;
}

/**
 * The ADI's point-to-point engine: requests, matching, and the hand-off to the device. Every arriving
 * message is matched at once (posted receive → the device delivers into it; none → the unexpected
 * queue), and every posted receive first searches the unexpected queue, so MPI's non-overtaking
 * order holds as long as the device delivers each peer's messages in order.
 */
export class PointToPoint implements DeviceHost {
  readonly engine = new MatchingEngine<RecvRequest, IncomingMessage>();
  #device: Device | undefined;
  readonly #clock: Clock;
  #probes: ProbeWaiter[] = [];
  /** Receives naming a peer that was lost fail at once. */
  readonly #lost = new Map<number, MpiError>();
  /**
   * Posted receives not yet complete, per world rank they name (a map: a rank names few of the
   * job's ranks, and an array indexed by rank would hold N entries per rank), and those for any source.
   */
  readonly #waiting = new Map<number, PeerReceives>();
  #waitingAny = 0;

  /** `mpi.matching`: with 'linear', posting a receive is charged as a scan of everything queued. */
  readonly #linearMatching: boolean;

  constructor(clock: Clock, matching: 'indexed' | 'linear' = 'indexed') {
    this.#clock = clock;
    this.#linearMatching = matching === 'linear';
  }

  set device(device: Device) {
    this.#device = device;
  }

  get device(): Device {
    return this.#device!;
  }

  isend(peer: number, context: number, source: number, tag: number, data: BufferSpan, mode: SendMode, blocking = false): SendRequest {
    const request = new SendRequest(peer, context, source, tag, data, mode, blocking);
    const lost = this.#lost.get(peer);
    if (lost !== undefined) request.fail(lost);
    else this.#device!.send(request);
    return request;
  }

  /** `peer` is the world rank of `source` (undefined for ANY_SOURCE), to fail at once if it is lost. */
  irecv(context: number, source: number, tag: number, data: BufferSpan, peer: number | undefined): RecvRequest {
    const request = new RecvRequest(context, source, tag, data, peer);
    this.#clock.charge(this.#linearMatching ? MATCH_NS + LINEAR_SCAN_ENTRY_NS * (this.engine.postedCount + this.engine.unexpectedCount) : MATCH_NS);
    const result = this.engine.post(context, source, tag, request);
    if (result.message !== undefined) {
      const message = result.message;
      if (message.ready) request.readyViolation = true;
      this.#device!.deliver(message, request);
      return request;
    }
    request.handle = result.handle;
    const lost = this.#lostFor(peer);
    if (lost !== undefined) {
      this.engine.cancel(result.handle);
      request.fail(lost);
      return request;
    }
    this.#countWaiting(request);
    this.#device!.receivePosted(peer, request);
    return request;
  }

  /**
   * Whether a posted receive waits for a message from world rank `peer` (naming it, or any source):
   * then messages from it must not be held back for lack of room, since the one it waits for may be
   * behind them (the device asks when it would hold one).
   */
  receivesWaitFor(peer: number): boolean {
    return this.#waitingAny > 0 || (this.#waiting.get(peer)?.count ?? 0) > 0;
  }

  postedReceives(): number {
    return this.engine.postedCount;
  }

  /** Counted from its posting until it completes (matched, cancelled or failed). */
  #countWaiting(request: RecvRequest): void {
    const peer = request.peer;
    if (peer === undefined) {
      this.#waitingAny++;
      request.onDone(this.#anyDone);
      return;
    }
    let waiting = this.#waiting.get(peer);
    if (waiting === undefined) this.#waiting.set(peer, (waiting = new PeerReceives()));
    waiting.count++;
    request.onDone(waiting.uncount);
  }

  readonly #anyDone = (): void => {
    this.#waitingAny--;
  };

  arrive(message: IncomingMessage): void {
    const request = this.takePosted(message.context, message.source, message.tag);
    if (request !== undefined) return this.#device!.deliver(message, request);
    this.arriveUnexpected(message);
  }

  takePosted(context: number, source: number, tag: number): RecvRequest | undefined {
    this.#clock.charge(MATCH_NS);
    const request = this.engine.takePosted(context, source, tag);
    if (request !== undefined) request.handle = undefined;
    return request;
  }

  arriveUnexpected(message: IncomingMessage): void {
    this.engine.queueUnexpected(message.context, message.source, message.tag, message);
    this.#device!.keep(message);
    if (this.#probes.length > 0) this.#wakeProbes(message);
  }

  arriveInto(request: RecvRequest): boolean {
    const handle = request.handle;
    if (handle === undefined) return false;
    this.#clock.charge(MATCH_NS);
    if (!this.engine.takeIfFirst(handle)) return false;
    request.handle = undefined;
    return true;
  }

  /**
   * `peer`: the world rank of `source` (undefined for ANY_SOURCE). Nothing found: what is looked
   * for may be behind messages the device holds for lack of room, which it lets go of now, so a
   * loop of iprobes makes progress (MPI's progress rule).
   */
  iprobe(context: number, source: number, tag: number, peer?: number): Status | undefined {
    this.#clock.charge(MATCH_NS);
    const found = this.engine.probe(context, source, tag);
    if (found === undefined) {
      this.#device!.receivePosted(peer);
      return undefined;
    }
    return new Status(found.source, found.tag, found.message.size);
  }

  /** `peer`: the world rank of `source`, undefined for ANY_SOURCE. */
  probe(context: number, source: number, tag: number, peer: number | undefined): Promise<Status> {
    const status = this.iprobe(context, source, tag, peer);
    if (status !== undefined) return Promise.resolve(status);
    const lost = this.#lostFor(peer);
    if (lost !== undefined) return Promise.reject(lost);
    return new Promise((resolve, reject) => this.#probes.push({ context, source, tag, peer, resolve, reject }));
  }

  #wakeProbes(message: IncomingMessage): void {
    const remaining: ProbeWaiter[] = [];
    for (const p of this.#probes) {
      const accepts = p.context === message.context && (p.source === ANY_SOURCE || p.source === message.source) && (p.tag === ANY_TAG || p.tag === message.tag);
      if (accepts) p.resolve(new Status(message.source, message.tag, message.size));
      else remaining.push(p);
    }
    this.#probes = remaining;
  }

  /**
   * MPI_Cancel of a receive: true if it was still posted. It completes as cancelled — or, when the
   * device first has to take it back from the peer it advertised it to and a message matches it
   * meanwhile, with that message (MPI allows either; `status.cancelled` tells).
   */
  cancel(request: RecvRequest): boolean {
    if (request.done || request.handle === undefined) return false;
    if (this.#device!.deferCancel(request)) return true;
    return this.cancelPosted(request);
  }

  cancelPosted(request: RecvRequest): boolean {
    if (request.done || request.handle === undefined) return false;
    if (!this.engine.cancel(request.handle)) return false;
    request.handle = undefined;
    request.complete(new Status(request.source, request.tag, 0, true));
    return true;
  }

  olderRivals(request: RecvRequest): number {
    return request.handle === undefined ? -1 : this.engine.olderRivals(request.handle);
  }

  /** A peer was lost: receives naming it fail now, and later operations with it fail at once. */
  peerFailed(peer: number, error: MpiError): void {
    this.#lost.set(peer, error);
    for (const request of this.engine.removePosted((r) => r.peer === peer)) {
      request.handle = undefined;
      request.fail(error);
    }
    // A probe naming the peer can never be answered now (one for any source still can).
    const keep: ProbeWaiter[] = [];
    for (const p of this.#probes) {
      if (p.peer === peer) p.reject(error);
      else keep.push(p);
    }
    this.#probes = keep;
  }

  /** Why `peer` (a world rank; undefined: any source) can no longer be heard from, if it is lost. */
  #lostFor(peer: number | undefined): MpiError | undefined {
    return peer === undefined ? undefined : this.#lost.get(peer);
  }
}
