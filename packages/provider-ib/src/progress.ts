import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, deliverable, DTO_SUCCESS, gatherInto, initiatorDone, IovWriter, resumeFlight, SimDataPathBase } from '@dapl/core/provider-kit';
import type { DtoOutcome, ReadResponse, SimFlight, TargetDone } from '@dapl/core/provider-kit';
import type { IbEndpoint } from './ep.js';
import type { IbFabric } from './fabric.js';

/** IBA: an RNR retry count of 7 means "retry for ever". */
export const RNR_RETRY_FOREVER = 7;

/** One transmission of a request on a queue pair (a retry is a new flight). */
interface Flight extends SimFlight<IbEndpoint> {
  readonly path: IbDataPath;
  /** RNR retries already spent on this request. */
  readonly retriesUsed: number;
}

/**
 * The data path of one RC queue pair (the initiator side of every request posted on it): each
 * stage of a DTO is a kernel event at its modelled time, and shared resources (PCI-X buses, NICs)
 * are booked from those events, so in time order (a target's NIC when the message's first byte
 * reaches it: SimNetwork).
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
export class IbDataPath extends SimDataPathBase<IbEndpoint, Flight> {
  private rnr: { f: Flight; since: number; giveUp: number } | undefined;

  constructor(ep: IbEndpoint) {
    super(ep, issue);
  }

  /** The peer posted a receive at its clock `atNs`: a send held by RNR is re-sent at the next retry time. */
  peerPostedRecv(atNs: number): void {
    const rnr = this.rnr;
    if (rnr === undefined) return;
    const { rnrTimerNs: timer, rnrRetries } = this.fabric.params;
    const k = Math.max(1, Math.ceil((atNs - rnr.since) / timer));
    // Posted (on the poster's clock, which may run ahead of the kernel's) after the last retry:
    // the retries have run out by then, and the scheduled give-up stands.
    if (rnrRetries !== RNR_RETRY_FOREVER && k > rnrRetries - rnr.f.retriesUsed) return;
    this.rnr = undefined;
    if (rnr.giveUp !== 0) this.fabric.kernel.cancel(rnr.giveUp);
    // The re-sent request has spent k more retries by then.
    this.fabric.kernel.schedule(rnr.since + k * timer, resumeFlight, { ...rnr.f, retriesUsed: rnr.f.retriesUsed + k });
  }

  protected newFlight(core: SimFlight<IbEndpoint>, resent: Flight | undefined): Flight {
    return { ...core, path: this, retriesUsed: resent?.retriesUsed ?? 0 };
  }

  protected forgetStall(): void {
    if (this.rnr !== undefined && this.rnr.giveUp !== 0) this.fabric.kernel.cancel(this.rnr.giveUp);
    this.rnr = undefined;
  }

  // ---- called from the events -------------------------------------------------------------

  /** The target had no receive for `f` (RNR NAK) at `atNs`: retry on the RNR timer, or give up. */
  protected hold(f: Flight, atNs: number): void {
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
    fabric.network.send(f.src.node, f.dst.node, 0, fetched, readRequestArrives, f);
    return;
  }
  const start = inline ? fetched : payloadReady(fabric, f.src.node, req.length, fetched);
  fabric.network.send(f.src.node, f.dst.node, req.length, start, arrives, f);
}

/** When a payload that is not inline can start onto the wire: streamed from a DMA read. */
function payloadReady(fabric: IbFabric, node: number, bytes: number, now: number): number {
  const dma = fabric.dmaRead(node, bytes, now);
  // The wire must not overtake the bus: the last byte leaves no earlier than it was read.
  return Math.max(dma.firstAt, dma.doneAt - fabric.network.serializationNs(bytes));
}

function arrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const now = fabric.kernel.now;
  const req = f.req;
  const dst = f.dst;
  if (req.op === 'send') {
    const recv = dst.takeRecvBy(now);
    if (recv === undefined) {
      return f.path.stalledOnRecv(f, now);
    }
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

function targetDone(x: TargetDone<Flight>): void {
  const f = x.f;
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the NAK went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  fabric.network.send(f.dst.node, f.src.node, 0, fabric.kernel.now, initiatorDone, { f, outcome: DTO_SUCCESS }, fabric.params.pciWriteLatencyNs);
}

function nak(f: Flight, outcome: DtoOutcome): void {
  const fabric = f.src.fabric;
  fabric.network.send(f.dst.node, f.src.node, 0, fabric.kernel.now, initiatorDone, { f, outcome }, fabric.params.pciWriteLatencyNs);
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
  fabric.network.send(f.dst.node, f.src.node, req.length, start, readResponseArrives, { f, bytes });
}

function readResponseArrives(x: ReadResponse<Flight>): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.dmaWrite(f.src.node, f.req.length, fabric.kernel.now), initiatorDone, { f, outcome: DTO_SUCCESS });
}

function giveUp(f: Flight): void {
  if (f.src.gen !== f.srcGen) return;
  f.path.giveUp(f);
}
