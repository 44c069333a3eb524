import { DatStatus, DtoStatus, MemAccess } from '@dapl/core';
import { copyIov, gatherInto, IovWriter, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import type { CombufEndpoint } from './ep.js';
import type { CombufFabric } from './fabric.js';

/** One transmission of a request on a connection (a re-send after a missing receive is a new flight). */
interface Flight {
  readonly path: CombufDataPath;
  readonly req: DtoRequest;
  readonly src: CombufEndpoint;
  readonly dst: CombufEndpoint;
  readonly srcGen: number;
  readonly dstGen: number;
  readonly epoch: number;
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
 * to the sender, as FMPL's receive header does, 001:223): everything posted after it is re-sent
 * once it goes, so that arrival order stays post order.
 */
export class CombufDataPath {
  /** Flights of older epochs are stale (a parked send sent everything after it back). */
  private epoch = 0;
  /** A send is parked: new requests are not issued until it goes out again. */
  private blocked = false;
  private parked: Flight | undefined;
  private readonly results = new Map<DtoRequest, Outcome>();

  constructor(
    private readonly ep: CombufEndpoint,
    private readonly fabric: CombufFabric,
  ) {}

  /** A request was posted; `postedAt` is the poster's clock after its CPU costs. */
  submit(req: DtoRequest, postedAt: number): void {
    if (this.blocked) return; // resume() issues it
    const f = this.flight(req);
    if (f !== undefined) this.fabric.kernel.schedule(Math.max(postedAt, this.fabric.kernel.now), issue, f);
  }

  /** The peer posted a receive at its clock `atNs`: a parked send goes once the news reaches this node. */
  peerPostedRecv(atNs: number): void {
    const f = this.parked;
    if (f === undefined) return;
    this.parked = undefined;
    const kernel = this.fabric.kernel;
    const notice = this.fabric.network.transfer(f.dst.node, f.src.node, 0, Math.max(atNs, kernel.now));
    kernel.schedule(notice.arrivesAt, resume, f);
  }

  /** The connection is gone: forget everything in flight (the kit flushes the queues). */
  reset(): void {
    this.epoch++;
    this.blocked = false;
    this.parked = undefined;
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

  /** `f`, a send, found no receive: park it and everything after it. */
  park(f: Flight): void {
    this.epoch++;
    this.blocked = true;
    this.parked = f;
  }

  /** Re-send the parked request and everything posted after it. */
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
    return { path: this, req, src: this.ep, dst, srcGen: this.ep.gen, dstGen: dst.gen, epoch: this.epoch };
  }
}

// ---- the events (shared functions: one closure-free schedule per stage) ----------------------

function issue(f: Flight): void {
  if (!f.path.isCurrent(f)) return;
  const fabric = f.src.fabric;
  const kernel = fabric.kernel;
  const bytes = f.req.op === 'rdma-read' ? 0 : f.req.length;
  const t = fabric.network.transfer(f.src.node, f.dst.node, bytes, kernel.now);
  kernel.schedule(t.arrivesAt, f.req.op === 'rdma-read' ? readRequestArrives : arrives, f);
}

/** CPU time to scatter `bytes` out of the contiguous remote DMA area into an iov of several segments. */
function scatterNs(fabric: CombufFabric, segments: number, bytes: number): number {
  return segments > 1 ? bytes / fabric.params.hostCopyBytesPerNs : 0;
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
    if (recv === undefined) return f.path.park(f);
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

function targetDone(x: TargetDone): void {
  const f = x.f;
  if (!deliverable(f)) return;
  if (x.recv !== undefined) f.dst.completeRecvAt(x.recv, x.recvStatus, x.recvStatus === DtoStatus.SUCCESS ? f.req.length : 0);
  if (x.recvStatus !== DtoStatus.SUCCESS) return; // the error notice went back at arrival
  if (f.req.op === 'rdma-write-immediate') f.dst.immediateArrived(f.req.immediate, f.req.length);
  reply(f, SUCCESS);
}

/** The target NIA's completion (or error) notice travels back to the initiator. */
function reply(f: Flight, outcome: Outcome): void {
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.noticeArrivesAt(f.dst.node, f.src.node, fabric.kernel.now), initiatorDone, { f, outcome });
}

function initiatorDone(x: InitiatorDone): void {
  if (x.f.src.gen !== x.f.srcGen) return;
  x.f.path.finish(x.f.req, x.outcome);
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
  const t = fabric.network.transfer(f.dst.node, f.src.node, req.length, fabric.kernel.now);
  fabric.kernel.schedule(t.arrivesAt, readResponseArrives, { f, bytes });
}

function readResponseArrives(x: ReadResponse): void {
  const f = x.f;
  if (f.src.gen !== f.srcGen) return;
  new IovWriter(f.req.iov).write(x.bytes);
  const fabric = f.src.fabric;
  fabric.kernel.schedule(fabric.kernel.now + scatterNs(fabric, f.req.iov.length, f.req.length), initiatorDone, { f, outcome: SUCCESS });
}

function resume(f: Flight): void {
  if (f.src.gen !== f.srcGen) return;
  f.path.resume(f);
}
