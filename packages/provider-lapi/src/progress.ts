import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, deliverable, DTO_SUCCESS, gatherInto, initiatorDone, IovWriter, resumeFlight, SimDataPathBase } from '@dapl/core/provider-kit';
import type { DtoOutcome, InitiatorDone, ReadResponse, SimFlight, TargetDone } from '@dapl/core/provider-kit';
import type { LapiEndpoint } from './ep.js';

/** One transmission of a request on an endpoint (a resend is a new flight). */
interface Flight extends SimFlight<LapiEndpoint> {
  readonly path: LapiDataPath;
  /** Write with immediate: the Put was refused at the target, so its notification raises nothing. */
  putFailed: boolean;
}

/**
 * The data path of one endpoint (the origin side of every request posted on it), DAT on LAPI's
 * primitives: each stage is a kernel event at its modelled time; the node's HAL paths and the
 * switch are booked from those events, so in time order.
 *
 * send: an Amsend — HAL copy + adapter DMA → switch → at the target the header handler picks the
 * posted receive (Banikazemi et al. §2), the data is DMA'd and copied into it, a predefined in-context completion
 * handler completes it (Banikazemi et al. §5.3) → LAPI's internal ack → the origin's completion.
 * RDMA write: a Put (the same path, the target address instead of a receive). Write with immediate:
 * the Put, then a header-only notification Amsend whose handler raises the immediate.
 * RDMA read: a Get — request → the target sends the data back → the origin's completion.
 *
 * A send that finds no posted receive is refused by the header handler; LAPI's reliability layer
 * resends it (and everything posted after it) every `retransmitNs` until one is posted: the path
 * waits for the peer's next receive and resends at the first retransmission time after it.
 */
export class LapiDataPath extends SimDataPathBase<LapiEndpoint, Flight> {
  private stalled: { f: Flight; since: number } | undefined;

  constructor(ep: LapiEndpoint) {
    super(ep, issue);
  }

  /** The peer posted a receive at its clock `atNs`: a refused send goes again at the next retransmission. */
  peerPostedRecv(atNs: number): void {
    const stalled = this.stalled;
    if (stalled === undefined) return;
    this.stalled = undefined;
    const timer = this.fabric.params.retransmitNs;
    const k = Math.max(1, Math.ceil((atNs - stalled.since) / timer));
    this.fabric.kernel.schedule(stalled.since + k * timer, resumeFlight, stalled.f);
  }

  protected newFlight(core: SimFlight<LapiEndpoint>): Flight {
    return { ...core, path: this, putFailed: false };
  }

  protected forgetStall(): void {
    this.stalled = undefined;
  }

  /** The header handler found no posted receive for `f` at `atNs`. */
  protected hold(f: Flight, atNs: number): void {
    this.stalled = { f, since: atNs };
  }
}

// ---- the events (shared functions: one closure-free schedule per stage) ----------------------

function issue(f: Flight): void {
  if (!f.path.isCurrent(f)) return;
  const fabric = f.src.fabric;
  const kernel = fabric.kernel;
  const now = kernel.now;
  const req = f.req;
  if (req.op === 'rdma-read') {
    fabric.send(f.src.node, f.dst.node, 0, now, getArrives, f);
    return;
  }
  fabric.send(f.src.node, f.dst.node, req.length, now, arrives, f);
  // The notification Amsend follows the Put from the same node, so it is noticed after the Put.
  if (req.op === 'rdma-write-immediate') fabric.send(f.src.node, f.dst.node, 0, now, notificationArrives, f);
}

/** An Amsend or Put noticed at the target. */
function arrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const now = fabric.kernel.now;
  const req = f.req;
  const dst = f.dst;
  if (req.op === 'send') {
    // The header handler picks the posted receive as the buffer to assemble into.
    const recv = dst.takeRecvBy(now);
    if (recv === undefined) {
      return f.path.stalledOnRecv(f, now + fabric.params.headerHandlerNs);
    }
    if (recv.length < req.length) {
      fabric.kernel.schedule(now + fabric.params.headerHandlerNs, targetDone, { f, recv, recvStatus: DtoStatus.LOCAL_LENGTH });
      return nak(f, now + fabric.params.headerHandlerNs, { status: DtoStatus.REMOTE_RESPONDER, reason: DatStatus.LENGTH_ERROR });
    }
    copyIov(req.iov, recv.iov, req.length);
    const placed = fabric.receive(dst.node, req.length, now);
    fabric.kernel.schedule(placed + fabric.completionNs(), targetDone, { f, recv, recvStatus: DtoStatus.SUCCESS });
    return;
  }
  const remote = req.remote!;
  const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_WRITE);
  if (typeof grant === 'string') {
    f.putFailed = true;
    return nak(f, now + fabric.params.headerHandlerNs, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  }
  gatherInto(req.iov, grant.bytes, grant.start);
  const placed = fabric.receive(dst.node, req.length, now);
  // A write with immediate completes after its notification (notificationArrives).
  if (req.op === 'rdma-write') fabric.kernel.schedule(placed, targetDone, { f, recv: undefined, recvStatus: DtoStatus.SUCCESS });
}

/** The notification of a write with immediate: its header handler's completion raises the immediate. */
function notificationArrives(f: Flight): void {
  if (!deliverable(f) || f.putFailed) return;
  const fabric = f.src.fabric;
  const handled = fabric.receive(f.dst.node, 0, fabric.kernel.now);
  fabric.kernel.schedule(handled + fabric.completionNs(), targetDone, { f, recv: undefined, recvStatus: DtoStatus.SUCCESS });
}

function targetDone(x: TargetDone<Flight>): void {
  const f = x.f;
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the NAK went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  ack(f, fabric.kernel.now, DTO_SUCCESS);
}

function nak(f: Flight, atNs: number, outcome: DtoOutcome): void {
  ack(f, atNs, outcome);
}

/** LAPI's internal acknowledgement back to the origin (it updates the completion counter). */
function ack(f: Flight, atNs: number, outcome: DtoOutcome): void {
  const fabric = f.src.fabric;
  fabric.send(f.dst.node, f.src.node, 0, atNs, ackArrives, { f, outcome });
}

function ackArrives(x: InitiatorDone<Flight>): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  const fabric = x.f.src.fabric;
  fabric.kernel.schedule(fabric.receive(x.f.src.node, 0, fabric.kernel.now), initiatorDone, x);
}

/** A Get request noticed at the target: its handler checks the window and sends the data back. */
function getArrives(f: Flight): void {
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  const handled = fabric.receive(f.dst.node, 0, fabric.kernel.now);
  const req = f.req;
  const remote = req.remote!;
  const grant = f.dst.ia.rmrTable.check(remote.rmrContext, f.dst.pz, remote.targetOffset, req.length, MemAccess.REMOTE_READ);
  if (typeof grant === 'string') return nak(f, handled, { status: DtoStatus.REMOTE_ACCESS, reason: grant });
  // The target's HAL copies the memory out now; the origin sees the bytes when they arrive.
  const bytes = grant.bytes.slice(grant.start, grant.start + req.length);
  fabric.send(f.dst.node, f.src.node, req.length, handled, getReplyArrives, { f, bytes });
}

function getReplyArrives(x: ReadResponse<Flight>): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.receive(f.src.node, f.req.length, fabric.kernel.now), initiatorDone, { f, outcome: DTO_SUCCESS });
}
