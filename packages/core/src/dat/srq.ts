import type { Endpoint } from './endpoint.js';
import type { EventDispatcher } from './evd.js';
import type { InterfaceAdapter } from './ia.js';
import type { Iov } from './memory.js';
import type { ProtectionZone } from './pz.js';

/** What `ia.createSrq` takes (DAT 2.0's `dat_srq_create` attributes). */
export interface SrqOptions {
  /** Most receives posted at once (1 … the IA's `limits.maxRecvDtos`). */
  readonly maxRecvs: number;
  /**
   * Raise `srq-limit-reached` once when fewer than this many receives stay posted (0, the default:
   * never). Re-armed by `srq.setLowWatermark`.
   */
  readonly lowWatermark?: number;
  /**
   * Where the queue's own events (`srq-limit-reached`, `srq-ep-drained`) go. Default: the receive
   * EVD of the endpoint concerned (for the limit: the one whose message took the receive).
   */
  readonly evd?: EventDispatcher;
}

/** `srq.query()`: the queue's settings and how full it is now. */
export interface SrqAttributes {
  readonly maxRecvs: number;
  readonly lowWatermark: number;
  /** Receives posted and not yet taken by a message. */
  readonly posted: number;
  /** Endpoints created on this queue and not yet freed. */
  readonly endpoints: number;
}

/**
 * A shared receive queue (DAT 2.0's SRQ): one pool of posted receives that every endpoint created
 * on it (`ia.createEp(pz, evds, { srq })`) takes from, oldest first, whichever peer sent. A receive
 * completes on the receive EVD of the endpoint whose message filled it, with that endpoint as `ep`.
 * Such an endpoint refuses `ep.postRecv` (INVALID_STATE): its receives come from here only.
 * Receives still posted when a connection ends stay posted for the other endpoints.
 */
export interface SharedReceiveQueue {
  readonly ia: InterfaceAdapter;
  readonly pz: ProtectionZone;
  readonly freed: boolean;
  /** Post a receive into `iov` (memory of the queue's PZ); QUEUE_FULL past `maxRecvs`. */
  postRecv(iov: Iov, cookie: unknown): void;
  /** The queue's settings and how many receives are posted now. */
  query(): SrqAttributes;
  /** Set the watermark (0 … maxRecvs) and re-arm `srq-limit-reached`. */
  setLowWatermark(lowWatermark: number): void;
  /**
   * Release the queue. INVALID_STATE while endpoints created on it are not freed; receives still
   * posted are dropped without events (their memory is the consumer's again).
   */
  free(): void;
}

/** Fewer receives than the watermark stay posted: post more (raised once per arming). */
export interface SrqLimitReachedEvent {
  readonly type: 'srq-limit-reached';
  readonly srq: SharedReceiveQueue;
  /** Receives still posted when the event was raised. */
  readonly posted: number;
  /** The endpoint whose message took the receive that crossed the watermark. */
  readonly ep: Endpoint;
}

/**
 * An endpoint created on a queue lost its connection (or was freed) and holds no receive of the
 * queue any more: every receive its messages took has completed (InfiniBand's "last WQE reached").
 * Freeing it cannot strand a receive of the queue.
 */
export interface SrqEpDrainedEvent {
  readonly type: 'srq-ep-drained';
  readonly srq: SharedReceiveQueue;
  readonly ep: Endpoint;
}
