import type { DatStatus, DtoStatus } from './status.js';
import type { Endpoint } from './endpoint.js';
import type { ConnectionRequest, PublicServicePoint } from './psp.js';
import type { EventDispatcher } from './evd.js';
import type { SrqEpDrainedEvent, SrqLimitReachedEvent } from './srq.js';

/**
 * The operation a DTO completion reports. `recv-immediate` is raised at the target of an
 * RDMA write with immediate data; it consumes no posted receive.
 */
export type DtoOp = 'send' | 'recv' | 'rdma-write' | 'rdma-write-immediate' | 'rdma-read' | 'recv-immediate';

/** A posted data transfer finished: the endpoint, the cookie given at post time, the operation, its status and the bytes it moved. */
export interface DtoCompletionEvent {
  readonly type: 'dto-completion';
  readonly ep: Endpoint;
  /** What the caller passed when posting; undefined for `recv-immediate`. */
  readonly cookie: unknown;
  readonly op: DtoOp;
  readonly status: DtoStatus;
  /** Bytes placed (receives, reads, immediates) or carried (sends, writes). */
  readonly transferredLength: number;
  /** The 32-bit immediate of an RDMA write with immediate data. */
  readonly immediate?: number;
  /** For REMOTE_ACCESS and local errors: PROTECTION_VIOLATION or PRIVILEGES_VIOLATION, etc. */
  readonly reason?: DatStatus;
}

/** A peer asked to connect to a public service point: accept or reject `request`. */
export interface ConnectionRequestEvent {
  readonly type: 'connection-request';
  readonly psp: PublicServicePoint;
  readonly request: ConnectionRequest;
}

/** How an endpoint's connection changed state. */
export type ConnectionEventType =
  | 'connection-established'
  /** The remote consumer rejected the request (`cr.reject()`). */
  | 'connection-peer-rejected'
  /** Nobody listens at that conn-qual, or the provider refused before a consumer saw it. */
  | 'connection-non-peer-rejected'
  | 'connection-disconnected'
  /** The connection was lost without a disconnect (peer died, protocol error). */
  | 'connection-broken'
  | 'connection-unreachable'
  | 'connection-timed-out';

/** An endpoint's connection changed state, with the peer's private data or the reason. */
export interface ConnectionEvent {
  readonly type: ConnectionEventType;
  readonly ep: Endpoint;
  /** Private data from the peer (on established and peer-rejected). */
  readonly privateData?: Uint8Array;
  /** Why, in words, for broken / unreachable / rejected. */
  readonly reason?: string;
}

/** An error not tied to one request (a queue overflow, a provider fault). */
export interface AsyncErrorEvent {
  readonly type: 'async-error';
  readonly status: DatStatus;
  readonly message: string;
  readonly ep?: Endpoint;
  readonly evd?: EventDispatcher;
}

/** Posted by the consumer itself (`evd.postSoftwareEvent`), e.g. to wake a waiter. */
export interface SoftwareEvent {
  readonly type: 'software';
  readonly value: unknown;
}

/** Every event an event dispatcher delivers. */
export type DatEvent =
  | DtoCompletionEvent
  | ConnectionRequestEvent
  | ConnectionEvent
  | AsyncErrorEvent
  | SoftwareEvent
  | SrqLimitReachedEvent
  | SrqEpDrainedEvent;
/** The `type` of each kind of event. */
export type DatEventType = DatEvent['type'];
