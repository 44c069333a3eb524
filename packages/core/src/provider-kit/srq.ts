import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { MemAccess, type Iov } from '../dat/memory.js';
import type { SharedReceiveQueue, SrqAttributes } from '../dat/srq.js';
import { Fifo } from '../util/fifo.js';
import type { EndpointBase, PostedRecv } from './endpoint-base.js';
import type { EvdQueue } from './evd-queue.js';
import type { IaBase } from './ia-base.js';
import { iovLength, takeIov } from './iov.js';
import type { KitPz } from './memory.js';
import { requireInteger } from './validate.js';

/**
 * The shared receive queue of every provider: posted receives oldest first, the endpoints created
 * on it, the low-watermark event, and the endpoints waiting for a receive (a message that found
 * the queue empty), woken by the next post. Endpoints take from it through `EndpointBase.takeRecv`.
 */
export class KitSrq implements SharedReceiveQueue {
  private readonly recvs = new Fifo<PostedRecv>(64);
  /** When each posted receive was posted, on the IA's clock (`IaBase.recvPostTimeNs`), beside `recvs`. */
  private readonly postedAt = new Fifo<number>(64);
  /** Endpoints created on the queue and not freed. */
  private readonly attached = new Set<EndpointBase>();
  /** Endpoints that found the queue empty since the last post. */
  private readonly waiting = new Set<EndpointBase>();
  private watermark: number;
  private armed: boolean;
  private isFreed = false;

  constructor(
    readonly ia: IaBase,
    readonly pz: KitPz,
    readonly maxRecvs: number,
    lowWatermark: number,
    /** Where the queue's events go; undefined: the endpoint's receive EVD. */
    readonly evd: EvdQueue | undefined,
  ) {
    this.watermark = lowWatermark;
    this.armed = lowWatermark > 0;
    pz.retain();
    evd?.retain();
  }

  get freed(): boolean {
    return this.isFreed;
  }

  /** Receives posted and not yet taken. */
  get posted(): number {
    return this.recvs.size;
  }

  postRecv(iov: Iov, cookie: unknown): void {
    this.checkUsable('srq.postRecv');
    const taken = takeIov(iov, 'iov', this.pz, MemAccess.LOCAL_WRITE, this.ia.limits.maxIov);
    if (this.recvs.size >= this.maxRecvs) {
      throw new DatError(DatStatus.QUEUE_FULL, `${this.recvs.size} receives are posted; the SRQ's maxRecvs is ${this.maxRecvs}`, { argument: 'srq' });
    }
    this.recvs.push({ cookie, iov: taken, length: iovLength(taken) });
    this.postedAt.push(this.ia.recvPostTimeNs());
    if (this.waiting.size === 0) return;
    const woken = [...this.waiting];
    this.waiting.clear();
    for (const ep of woken) ep.kitSrqRecvPosted();
  }

  /** The queue's settings, receives posted, endpoints attached. */
  query(): SrqAttributes {
    this.checkUsable('srq.query');
    return { maxRecvs: this.maxRecvs, lowWatermark: this.watermark, posted: this.recvs.size, endpoints: this.attached.size };
  }

  setLowWatermark(lowWatermark: number): void {
    this.checkUsable('srq.setLowWatermark');
    this.watermark = requireInteger(lowWatermark, 'lowWatermark', 0, this.maxRecvs);
    this.armed = lowWatermark > 0;
  }

  free(): void {
    this.checkUsable('srq.free');
    if (this.attached.size > 0) {
      throw new DatError(DatStatus.INVALID_STATE, `the SRQ still has ${this.attached.size} endpoint(s); free those first`, { argument: 'srq', subtype: 'DAT_INVALID_STATE_SRQ_IN_USE' });
    }
    this.destroy();
    this.ia.forgetSrq(this);
  }

  // ---- kit side -----------------------------------------------------------------------------

  /** Release without the in-use check (IA close, after its endpoints). */
  destroy(): void {
    if (this.isFreed) return;
    this.isFreed = true;
    this.recvs.drain();
    this.postedAt.drain();
    this.waiting.clear();
    this.pz.release();
    this.evd?.release();
  }

  /** `ep` was created on this queue. */
  attach(ep: EndpointBase): void {
    this.attached.add(ep);
  }

  /** `ep` was freed: it no longer counts against `free()`. */
  detach(ep: EndpointBase): void {
    this.attached.delete(ep);
    this.waiting.delete(ep);
  }

  /** The oldest receive, without taking it. */
  peek(): PostedRecv | undefined {
    return this.recvs.peek();
  }

  /** When the oldest receive was posted (`IaBase.recvPostTimeNs`), if any. */
  peekPostedAt(): number | undefined {
    return this.postedAt.peek();
  }

  /** The oldest receive for `ep`'s message; none: `ep` is woken by the next post. */
  take(ep: EndpointBase): PostedRecv | undefined {
    const recv = this.recvs.shift();
    if (recv === undefined) {
      this.waiting.add(ep);
      return undefined;
    }
    this.postedAt.shift();
    if (this.armed && this.recvs.size < this.watermark) {
      this.armed = false;
      (this.evd ?? ep.evds.recv).push({ type: 'srq-limit-reached', srq: this, posted: this.recvs.size, ep });
    }
    return recv;
  }

  /** `ep` found no receive it may take yet (one posted later than its message): wake it on the next post. */
  wait(ep: EndpointBase): void {
    this.waiting.add(ep);
  }

  /** `ep` holds no receive of the queue any more. */
  drained(ep: EndpointBase): void {
    (this.evd ?? ep.evds.recv).push({ type: 'srq-ep-drained', srq: this, ep });
  }

  private checkUsable(op: string): void {
    this.ia.checkOpen(op);
    if (this.isFreed) throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the SRQ has been freed`, { argument: 'srq', subtype: 'DAT_INVALID_HANDLE_SRQ' });
  }
}
