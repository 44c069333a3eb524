import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, gatherInto, IovWriter, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import type { IbEndpoint } from './ep.js';
import type { IbFabric } from './fabric.js';

/** IBA: an RNR retry count of 7 means "retry for ever". */
export const RNR_RETRY_FOREVER = 7;

/** One transmission of a request on a queue pair (a retry is a new flight). */
interface Flight {
  readonly path: IbDataPath;
  readonly req: DtoRequest;
  readonly src: IbEndpoint;
  readonly dst: IbEndpoint;
  readonly srcGen: number;
  readonly dstGen: number;
  readonly epoch: number;
  /** RNR retries already spent on this request. */
  readonly retriesUsed: number;
}

interface Outcome {
  readonly status: DtoStatus;
  readonly reason: DatStatus | undefined;
}

interface TargetDone {
  readonly f: Flight;
  readonly recv: PostedRecv | undefined;
  readonly recvStatus: DtoStatus;
}

interface InitiatorDone {
  readonly f: Flight;
  readonly outcome: Outcome;
}

interface ReadResponse {
  readonly f: Flight;
  readonly bytes: Uint8Array;
}

const SUCCESS: Outcome = { status: DtoStatus.SUCCESS, reason: undefined };

/**
 * The data path of one RC queue pair (the initiator side of every request posted on it): each
 * stage of a DTO is a kernel event at its modelled time, and shared resources (PCI-X buses, NICs)
 * are booked from those events, so in time order.
 *
 * send / write: post (CPU) → DMA read unless inline → wire → arrival (RMR check, bytes copied, receive
 * matched) → DMA write at the target → target completion → ACK → send completion.
 * read: request packet → arrival (RMR check, bytes read) → DMA read at the target → response →
 * DMA write at the initiator → completion.
 *
 * RNR (a send finds no receive): go-back-N — every request after it is re-sent once it succeeds.
 * Retries happen at arrival + k·rnrTimer; rather than simulating each, the path waits for the
 * peer's next receive and re-sends at the first retry time after it, or gives up at the last one.
 */
export class IbDataPath {
  /** Flights of older epochs are stale (an RNR sent everything after the stalled send back). */
  private epoch = 0;
  /** An RNR is outstanding: new requests are not issued until the stalled send goes out again. */
  private blocked = false;
  private rnr: { f: Flight; since: number; giveUp: number } | undefined;
  private readonly results = new Map<DtoRequest, Outcome>();

  constructor(
    private readonly ep: IbEndpoint,
    private readonly fabric: IbFabric,
  ) {}

  /** A request was posted; `postedAt` is the poster's clock after the post overhead. */
  submit(req: DtoRequest, postedAt: number): void {
    if (this.blocked) return; // resume() issues it
    const f = this.flight(req, 0);
    if (f !== undefined) this.fabric.kernel.schedule(postedAt, issue, f);
  }

  /** The peer posted a receive at its clock `atNs`: a send held by RNR is re-sent at the next retry time. */
  peerPostedRecv(atNs: number): void {
    const rnr = this.rnr;
    if (rnr === undefined) return;
    this.rnr = undefined;
    if (rnr.giveUp !== 0) this.fabric.kernel.cancel(rnr.giveUp);
    const timer = this.fabric.params.rnrTimerNs;
    const k = Math.max(1, Math.ceil((atNs - rnr.since) / timer));
    this.fabric.kernel.schedule(rnr.since + k * timer, resume, { path: this, f: rnr.f, retries: rnr.f.retriesUsed + k });
  }

  /** The connection is gone: forget everything in flight (the kit flushes the queues). */
  reset(): void {
    this.epoch++;
    this.blocked = false;
    if (this.rnr !== undefined && this.rnr.giveUp !== 0) this.fabric.kernel.cancel(this.rnr.giveUp);
    this.rnr = undefined;
    this.results.clear();
  }

  // ---- called from the events -------------------------------------------------------------

  isCurrent(f: Flight): boolean {
    return f.epoch === this.epoch && f.src.gen === f.srcGen;
  }

  /** Record a request's outcome; complete requests from the head while they have one (post order). */
  finish(req: DtoRequest, outcome: Outcome): void {
    this.results.set(req, outcome);
    for (let head = this.ep.peekRequest(); head !== undefined; head = this.ep.peekRequest()) {
      const done = this.results.get(head);
      if (done === undefined) return;
      this.results.delete(head);
      this.ep.finishHead(done.status, done.reason);
    }
  }

  onRnr(f: Flight, atNs: number): void {
    this.epoch++;
    this.blocked = true;
    const { rnrRetries, rnrTimerNs } = this.fabric.params;
    if (rnrRetries === RNR_RETRY_FOREVER) {
      this.rnr = { f, since: atNs, giveUp: 0 };
      return;
    }
    const left = rnrRetries - f.retriesUsed;
    if (left <= 0) {
      this.giveUp(f);
      return;
    }
    this.rnr = { f, since: atNs, giveUp: this.fabric.kernel.schedule(atNs + left * rnrTimerNs, giveUp, f) };
  }

  giveUp(f: Flight): void {
    this.rnr = undefined;
    this.finish(f.req, { status: DtoStatus.RECEIVER_NOT_READY, reason: undefined });
    // As an RC QP goes to the error state: both ends see the connection break.
    const reason = `the peer posted no receive within ${this.fabric.params.rnrRetries} RNR retries`;
    this.ep.breakConnection(reason, `the peer's queue pair failed: ${reason}`);
  }

  /** Re-send the stalled request and everything posted after it. */
  resume(stalled: Flight, retries: number): void {
    this.blocked = false;
    let i = 0;
    for (let r = this.ep.requestAt(i); r !== undefined && r !== stalled.req; r = this.ep.requestAt(++i));
    for (let r = this.ep.requestAt(i); r !== undefined; r = this.ep.requestAt(++i)) {
      const f = this.flight(r, r === stalled.req ? retries : 0);
      if (f === undefined) return;
      issue(f);
    }
  }

  private flight(req: DtoRequest, retriesUsed: number): Flight | undefined {
    const dst = this.ep.peer;
    if (dst === undefined) return undefined;
    return { path: this, req, src: this.ep, dst, srcGen: this.ep.gen, dstGen: dst.gen, epoch: this.epoch, retriesUsed };
  }
}

// ---- the events (shared functions: one closure-free schedule per stage) ----------------------

function issue(f: Flight): void {
  if (!f.path.isCurrent(f)) return;
  const fabric = f.src.fabric;
  const kernel = fabric.kernel;
  const p = fabric.params;
  const req = f.req;
  // The doorbell reaches the HCA, which then reads the work request (and inline data in it) by DMA.
  const inline = req.op !== 'rdma-read' && req.length <= p.inlineBytes;
  const fetched = fabric.dmaRead(f.src.node, p.wqeBytes + (inline ? req.length : 0), kernel.now + p.doorbellNs).doneAt;
  if (req.op === 'rdma-read') {
    const t = fabric.network.transfer(f.src.node, f.dst.node, 0, fetched);
    kernel.schedule(t.arrivesAt, readRequestArrives, f);
    return;
  }
  const start = inline ? fetched : payloadReady(fabric, f.src.node, req.length, fetched);
  const t = fabric.network.transfer(f.src.node, f.dst.node, req.length, start);
  kernel.schedule(t.arrivesAt, arrives, f);
}

/** When a payload that is not inline can start onto the wire: streamed from a DMA read. */
function payloadReady(fabric: IbFabric, node: number, bytes: number, now: number): number {
  const dma = fabric.dmaRead(node, bytes, now);
  // The wire must not overtake the bus: the last byte leaves no earlier than it was read.
  return Math.max(dma.firstAt, dma.doneAt - fabric.network.serializationNs(bytes));
}

function deliverable(f: Flight): boolean {
  return f.path.isCurrent(f) && f.dst.gen === f.dstGen;
}

function arrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const now = fabric.kernel.now;
  const req = f.req;
  const dst = f.dst;
  if (req.op === 'send') {
    const recv = dst.takeRecv();
    if (recv === undefined) return f.path.onRnr(f, now);
    if (recv.length < req.length) {
      fabric.kernel.schedule(now + fabric.params.pciWriteLatencyNs, targetDone, { f, recv, recvStatus: DtoStatus.LOCAL_LENGTH });
      return nak(f, { status: DtoStatus.REMOTE_RESPONDER, reason: DatStatus.LENGTH_ERROR });
    }
    copyIov(req.iov, recv.iov, req.length);
    // The receive WQE says where the data goes: the HCA writes it only once that WQE is in.
    const placed = receiveWqeIn(fabric, req.length, now);
    fabric.kernel.schedule(fabric.dmaWrite(dst.node, req.length, placed), targetDone, { f, recv, recvStatus: DtoStatus.SUCCESS });
    return;
  }
  const remote = req.remote!;
  const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_WRITE);
  if (typeof grant === 'string') return nak(f, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  gatherInto(req.iov, grant.bytes, grant.start);
  let done = fabric.dmaWrite(dst.node, req.length, now);
  // An RDMA write with immediate consumes a receive WQE at the responder (IBA; libmthca reports it as
  // a receive completion, IBV_WC_RECV_RDMA_WITH_IMM): the data goes where the RETH says at once, but
  // the completion carrying the immediate waits for that WQE. (DAT's write with immediate consumes no
  // receive of the consumer's (DESIGN): the provider keeps receives of its own for it.)
  if (req.op === 'rdma-write-immediate') done = Math.max(done, receiveWqeIn(fabric, req.length, now) + fabric.params.pciWriteLatencyNs);
  fabric.kernel.schedule(done, targetDone, { f, recv: undefined, recvStatus: DtoStatus.SUCCESS });
}

/**
 * When the responder's HCA has the receive WQE a message consumes, for a message whose last packet
 * arrived at `arrivedAt`: it reads the WQE by DMA once the first packet is in, so for a long message
 * the read hides behind the rest of the packets. (A 64-byte read: it is not booked on the bus, whose
 * bookings must stay in time order.)
 */
function receiveWqeIn(fabric: IbFabric, bytes: number, arrivedAt: number): number {
  const p = fabric.params;
  const net = fabric.network;
  const firstPacketIn = arrivedAt - net.serializationNs(bytes) + net.serializationNs(Math.min(bytes, p.mtuBytes));
  return Math.max(arrivedAt, firstPacketIn + p.pciReadLatencyNs + p.wqeBytes / p.pciBytesPerNs);
}

function targetDone(x: TargetDone): void {
  const f = x.f;
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the NAK went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  const ack = fabric.network.transfer(f.dst.node, f.src.node, 0, fabric.kernel.now);
  fabric.kernel.schedule(ack.arrivesAt + fabric.params.pciWriteLatencyNs, initiatorDone, { f, outcome: SUCCESS });
}

function nak(f: Flight, outcome: Outcome): void {
  const fabric = f.src.fabric;
  const back = fabric.network.transfer(f.dst.node, f.src.node, 0, fabric.kernel.now);
  fabric.kernel.schedule(back.arrivesAt + fabric.params.pciWriteLatencyNs, initiatorDone, { f, outcome });
}

function initiatorDone(x: InitiatorDone): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  x.f.path.finish(x.f.req, x.outcome);
}

function readRequestArrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const now = fabric.kernel.now;
  const req = f.req;
  const remote = req.remote!;
  const grant = f.dst.ia.rmrTable.check(remote.rmrContext, f.dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_READ);
  if (typeof grant === 'string') return nak(f, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  // The responder's HCA reads the memory now; the initiator sees the bytes when they arrive.
  const bytes = grant.bytes.slice(grant.start, grant.start + req.length);
  // A read response always comes by DMA from the responder's memory (no inline on that side).
  const start = req.length === 0 ? now : payloadReady(fabric, f.dst.node, req.length, now);
  const t = fabric.network.transfer(f.dst.node, f.src.node, req.length, start);
  fabric.kernel.schedule(t.arrivesAt, readResponseArrives, { f, bytes });
}

function readResponseArrives(x: ReadResponse): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.dmaWrite(f.src.node, f.req.length, fabric.kernel.now), initiatorDone, { f, outcome: SUCCESS });
}

function resume(x: { path: IbDataPath; f: Flight; retries: number }): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  x.path.resume(x.f, x.retries);
}

function giveUp(f: Flight): void {
  if (f.src.gen !== f.srcGen) return;
  f.path.giveUp(f);
}
