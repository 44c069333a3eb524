import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, deliverable, DTO_SUCCESS, gatherInto, initiatorDone, IovWriter, resumeFlight, SimDataPathBase } from '@dapl/core/provider-kit';
import type { DtoOutcome, ReadResponse, SimFlight, TargetDone } from '@dapl/core/provider-kit';
import type { CombufEndpoint } from './ep.js';
import type { CombufFabric } from './fabric.js';

/** One transmission of a request on a connection (a re-send after a missing receive is a new flight). */
interface Flight extends SimFlight<CombufEndpoint> {
  readonly path: CombufDataPath;
}

/**
 * The data path of one connection (the initiator side of every request posted on it). Every DAT
 * operation is a remote DMA through the NIA: each stage is a kernel event at its modelled time,
 * and the crossbar's per-node injection/ejection is booked from those events, so in time order.
 * (The CPU costs — kick, TCW creation, send right, gathers — were charged at post time, ep.ts.)
 *
 * send / write: remote DMA of the payload (into the posted receive, or the RMR window) → target
 * completion (recv / recv-immediate) → the NIA's completion notice back → send completion.
 * read: a control remote DMA to the target → its NIA DMAs the window back → completion.
 *
 * A send that finds no posted receive waits at the target for one (a receive makes its buffer known
 * to the sender, as FMPL's receive header does, Tatebe et al. §4.1): everything posted after it is re-sent
 * once it goes, so that arrival order stays post order.
 */
export class CombufDataPath extends SimDataPathBase<CombufEndpoint, Flight> {
  private parked: Flight | undefined;

  constructor(ep: CombufEndpoint) {
    super(ep, issue);
  }

  /** The peer posted a receive at its clock `atNs`: a parked send goes once the news reaches this node. */
  peerPostedRecv(atNs: number): void {
    const f = this.parked;
    if (f === undefined) return;
    this.parked = undefined;
    const kernel = this.fabric.kernel;
    // Not booked on the links: the post may lie ahead of the kernel's time, and the network books
    // transfers in time order (the initiator's completion notices go the same way, see `reply`).
    kernel.schedule(this.fabric.noticeArrivesAt(f.dst.node, f.src.node, Math.max(atNs, kernel.now)), resumeFlight, f);
  }

  /** `postedAt` is the poster's clock after its CPU costs; a post outside the rank's time starts now. */
  protected override issueAt(postedAt: number): number {
    return Math.max(postedAt, this.fabric.kernel.now);
  }

  protected newFlight(core: SimFlight<CombufEndpoint>): Flight {
    return { ...core, path: this };
  }

  protected forgetStall(): void {
    this.parked = undefined;
  }

  /** `f`, a send, found no receive: park it and everything after it. */
  protected hold(f: Flight): void {
    this.parked = f;
  }
}

// ---- the events (shared functions: one closure-free schedule per stage) ----------------------

function issue(f: Flight): void {
  if (!f.path.isCurrent(f)) return;
  const fabric = f.src.fabric;
  const kernel = fabric.kernel;
  const bytes = f.req.op === 'rdma-read' ? 0 : f.req.length;
  fabric.network.send(f.src.node, f.dst.node, bytes, kernel.now, f.req.op === 'rdma-read' ? readRequestArrives : arrives, f);
}

/** CPU time to scatter `bytes` out of the contiguous remote DMA area into an iov of several segments. */
function scatterNs(fabric: CombufFabric, segments: number, bytes: number): number {
  return segments > 1 ? bytes / fabric.params.hostCopyBytesPerNs : 0;
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
      fabric.kernel.schedule(now, targetDone, { f, recv, recvStatus: DtoStatus.LOCAL_LENGTH });
      return reply(f, { status: DtoStatus.REMOTE_RESPONDER, reason: DatStatus.LENGTH_ERROR });
    }
    copyIov(req.iov, recv.iov, req.length);
    fabric.kernel.schedule(now + scatterNs(fabric, recv.iov.length, req.length), targetDone, { f, recv, recvStatus: DtoStatus.SUCCESS });
    return;
  }
  const remote = req.remote!;
  const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_WRITE);
  if (typeof grant === 'string') return reply(f, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  gatherInto(req.iov, grant.bytes, grant.start);
  targetDone({ f, recv: undefined, recvStatus: DtoStatus.SUCCESS });
}

function targetDone(x: TargetDone<Flight>): void {
  const f = x.f;
  if (!deliverable(f)) return;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the error notice went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  reply(f, DTO_SUCCESS);
}

/** The target NIA's completion (or error) notice travels back to the initiator. */
function reply(f: Flight, outcome: DtoOutcome): void {
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.noticeArrivesAt(f.dst.node, f.src.node, fabric.kernel.now), initiatorDone, { f, outcome });
}

function readRequestArrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const req = f.req;
  const remote = req.remote!;
  const grant = f.dst.ia.rmrTable.check(remote.rmrContext, f.dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_READ);
  if (typeof grant === 'string') return reply(f, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  // The target's NIA reads the memory now; the initiator sees the bytes when they arrive.
  const bytes = grant.bytes.slice(grant.start, grant.start + req.length);
  fabric.network.send(f.dst.node, f.src.node, req.length, fabric.kernel.now, readResponseArrives, { f, bytes });
}

function readResponseArrives(x: ReadResponse<Flight>): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.kernel.now + scatterNs(fabric, f.req.iov.length, f.req.length), initiatorDone, { f, outcome: DTO_SUCCESS });
}
