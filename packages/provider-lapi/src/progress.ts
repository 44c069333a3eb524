import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, gatherInto, IovWriter, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import type { LapiEndpoint } from './ep.js';
import type { LapiFabric } from './fabric.js';

/** One transmission of a request on an endpoint (a resend is a new flight). */
interface Flight {
  readonly path: LapiDataPath;
  readonly req: DtoRequest;
  readonly src: LapiEndpoint;
  readonly dst: LapiEndpoint;
  readonly srcGen: number;
  readonly dstGen: number;
  readonly epoch: number;
  /** Write with immediate: the Put was refused at the target, so its notification raises nothing. */
  putFailed: boolean;
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

interface GetReply {
  readonly f: Flight;
  readonly bytes: Uint8Array;
}

const SUCCESS: Outcome = { status: DtoStatus.SUCCESS, reason: undefined };

/**
 * The data path of one endpoint (the origin side of every request posted on it), DAT on LAPI's
 * primitives: each stage is a kernel event at its modelled time; the node's HAL paths and the
 * switch are booked from those events, so in time order.
 *
 * send: an Amsend — HAL copy + adapter DMA → switch → at the target the header handler picks the
 * posted receive (000:80), the data is DMA'd and copied into it, a predefined in-context completion
 * handler completes it (000:388) → LAPI's internal ack → the origin's completion.
 * RDMA write: a Put (the same path, the target address instead of a receive). Write with immediate:
 * the Put, then a header-only notification Amsend whose handler raises the immediate.
 * RDMA read: a Get — request → the target sends the data back → the origin's completion.
 *
 * A send that finds no posted receive is refused by the header handler; LAPI's reliability layer
 * resends it (and everything posted after it) every `retransmitNs` until one is posted: the path
 * waits for the peer's next receive and resends at the first retransmission time after it.
 */
export class LapiDataPath {
  /** Flights of older epochs are stale (a refusal sent everything after the stalled send back). */
  private epoch = 0;
  /** A refused send is outstanding: new requests are not issued until it goes out again. */
  private blocked = false;
  private stalled: { f: Flight; since: number } | undefined;
  private readonly results = new Map<DtoRequest, Outcome>();

  constructor(
    private readonly ep: LapiEndpoint,
    private readonly fabric: LapiFabric,
  ) {}

  /** A request was posted; `postedAt` is the poster's clock after the LAPI call. */
  submit(req: DtoRequest, postedAt: number): void {
    if (this.blocked) return; // resume() issues it
    const f = this.flight(req);
    if (f !== undefined) this.fabric.kernel.schedule(postedAt, issue, f);
  }

  /** The peer posted a receive at its clock `atNs`: a refused send goes again at the next retransmission. */
  peerPostedRecv(atNs: number): void {
    const stalled = this.stalled;
    if (stalled === undefined) return;
    this.stalled = undefined;
    const timer = this.fabric.params.retransmitNs;
    const k = Math.max(1, Math.ceil((atNs - stalled.since) / timer));
    this.fabric.kernel.schedule(stalled.since + k * timer, resume, stalled.f);
  }

  /** The connection is gone: forget everything in flight (the kit flushes the queues). */
  reset(): void {
    this.epoch++;
    this.blocked = false;
    this.stalled = undefined;
    this.results.clear();
  }

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

  /** The header handler found no posted receive for `f` at `atNs`. */
  refused(f: Flight, atNs: number): void {
    this.epoch++;
    this.blocked = true;
    this.stalled = { f, since: atNs };
  }

  /** Resend the stalled request and everything posted after it. */
  resume(stalled: Flight): void {
    this.blocked = false;
    let i = 0;
    for (let r = this.ep.requestAt(i); r !== undefined && r !== stalled.req; r = this.ep.requestAt(++i));
    for (let r = this.ep.requestAt(i); r !== undefined; r = this.ep.requestAt(++i)) {
      const f = this.flight(r);
      if (f === undefined) return;
      issue(f);
    }
  }

  private flight(req: DtoRequest): Flight | undefined {
    const dst = this.ep.peer;
    if (dst === undefined) return undefined;
    return { path: this, req, src: this.ep, dst, srcGen: this.ep.gen, dstGen: dst.gen, epoch: this.epoch, putFailed: false };
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
    kernel.schedule(fabric.send(f.src.node, f.dst.node, 0, now), getArrives, f);
    return;
  }
  kernel.schedule(fabric.send(f.src.node, f.dst.node, req.length, now), arrives, f);
  // The notification Amsend follows the Put from the same node, so it is noticed after the Put.
  if (req.op === 'rdma-write-immediate') kernel.schedule(fabric.send(f.src.node, f.dst.node, 0, now), notificationArrives, f);
}

function deliverable(f: Flight): boolean {
  return f.path.isCurrent(f) && f.dst.gen === f.dstGen;
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
    const recv = dst.takeRecv();
    if (recv === undefined) return f.path.refused(f, now + fabric.params.headerHandlerNs);
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

function targetDone(x: TargetDone): void {
  const f = x.f;
  if (!deliverable(f)) return;
  const fabric = f.src.fabric;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the NAK went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  ack(f, fabric.kernel.now, SUCCESS);
}

function nak(f: Flight, atNs: number, outcome: Outcome): void {
  ack(f, atNs, outcome);
}

/** LAPI's internal acknowledgement back to the origin (it updates the completion counter). */
function ack(f: Flight, atNs: number, outcome: Outcome): void {
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.send(f.dst.node, f.src.node, 0, atNs), ackArrives, { f, outcome });
}

function ackArrives(x: InitiatorDone): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  const fabric = x.f.src.fabric;
  fabric.kernel.schedule(fabric.receive(x.f.src.node, 0, fabric.kernel.now), initiatorDone, x);
}

function initiatorDone(x: InitiatorDone): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  x.f.path.finish(x.f.req, x.outcome);
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
  fabric.kernel.schedule(fabric.send(f.dst.node, f.src.node, req.length, handled), getReplyArrives, { f, bytes });
}

function getReplyArrives(x: GetReply): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.receive(f.src.node, f.req.length, fabric.kernel.now), initiatorDone, { f, outcome: SUCCESS });
}

function resume(f: Flight): void {
  if (f.src.gen !== f.srcGen) return;
  f.path.resume(f);
}
