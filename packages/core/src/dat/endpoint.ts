import type { InterfaceAdapter } from './ia.js';
import type { ProtectionZone } from './pz.js';
import type { EventDispatcher } from './evd.js';
import type { Iov, RmrTriplet } from './memory.js';
import type { SharedReceiveQueue } from './srq.js';

/** DAT_EP_STATE. The transitions live in `@dapl/core/provider-kit` (`transitionEp`). */
export enum EpState {
  UNCONNECTED = 'UNCONNECTED',
  ACTIVE_CONNECTION_PENDING = 'ACTIVE_CONNECTION_PENDING',
  /** Handed to `cr.accept()`, waiting for the connection to complete. */
  PASSIVE_CONNECTION_PENDING = 'PASSIVE_CONNECTION_PENDING',
  CONNECTED = 'CONNECTED',
  DISCONNECT_PENDING = 'DISCONNECT_PENDING',
  DISCONNECTED = 'DISCONNECTED',
  FREED = 'FREED',
}

/** An endpoint's queue depths and iov limits (`ia.createEp`'s attributes), each within the IA's limits. */
export interface EndpointAttributes {
  readonly maxRecvDtos: number;
  readonly maxRequestDtos: number;
  readonly maxRecvIov: number;
  readonly maxRequestIov: number;
}

/** What `ia.createEp` takes: queue depths and iov limits (defaults: the IA's), and an optional shared receive queue. */
export type EndpointCreateAttributes = Partial<EndpointAttributes> & {
  /** Take receives from this queue (of the same IA and PZ) instead of the endpoint's own. */
  readonly srq?: SharedReceiveQueue;
};

/** The EVDs an endpoint reports to; one EVD may serve all three roles. */
export interface EndpointEvds {
  /** Receive completions and `recv-immediate`. */
  readonly recv: EventDispatcher;
  /** Completions of sends, RDMA writes and reads. */
  readonly request: EventDispatcher;
  /** Connection events. */
  readonly connect: EventDispatcher;
}

/** What `ep.connect` may carry: private data for the server and a time limit. */
export interface ConnectOptions {
  /** At most `limits.maxPrivateData` bytes, delivered to the server with the request. */
  readonly privateData?: Uint8Array;
  /** Give up with `connection-timed-out` after this long. Default: the provider's. */
  readonly timeoutMs?: number;
}

/** Options of a posted request (DAT's completion flags). */
export interface PostOptions {
  /**
   * DAT_COMPLETION_SUPPRESS_FLAG: no completion event when the request succeeds (an error,
   * including a flush, is still reported). For traffic whose success the consumer learns
   * otherwise, e.g. a reply, so a message costs one event instead of two.
   */
  readonly suppressCompletion?: boolean;
  /**
   * Sends and RDMA writes: the request may complete as soon as its source memory may be reused,
   * before the target has confirmed it (libfabric's FI_INJECT_COMPLETE; an MPI send needs no more).
   * A provider that cannot tell completes it as usual. An error the target finds after such a
   * completion breaks the connection instead (`connection-broken` naming the request), so it is
   * never silent. Reads ignore it: their data lands here.
   */
  readonly localCompletion?: boolean;
}

export interface RdmaWriteOptions extends PostOptions {
  /** A 32-bit value raised at the target as a `recv-immediate` completion (the doorbell). */
  readonly immediate?: number;
}

/**
 * An endpoint: one side of a reliable connection. Every `post*` call is synchronous: bad
 * arguments or state throw `DatError` at once, the outcome arrives later as an event.
 */
export interface Endpoint {
  readonly ia: InterfaceAdapter;
  readonly pz: ProtectionZone;
  readonly evds: EndpointEvds;
  readonly attributes: EndpointAttributes;
  readonly state: EpState;
  /** The shared receive queue the endpoint was created on, if any. */
  readonly srq?: SharedReceiveQueue;
  /** The peer's IA address once connected. */
  readonly remoteAddress: string | undefined;
  /**
   * Start an active connection to the PSP `connQual` of the IA at `address`; the outcome is a
   * connection event (`connection-established`, or a rejection, timeout or unreachable peer).
   * @throws DatError INVALID_ADDRESS for a malformed address, INVALID_PARAMETER for a `connQual`
   * outside the IA's range or bad options, INVALID_STATE unless the endpoint is UNCONNECTED.
   */
  connect(address: string, connQual: number, options?: ConnectOptions): void;
  /** Graceful unless `abrupt`; either way the outcome is a connection event and pending DTOs flush. */
  disconnect(options?: { readonly abrupt?: boolean }): void;
  /**
   * Send the bytes of `iov` to the peer's next posted receive; `cookie` comes back in the
   * `send` completion. The iov must stay untouched until then.
   * @throws DatError INVALID_STATE unless CONNECTED, INVALID_HANDLE once freed, LENGTH_ERROR past
   * `maxMessageSize`, QUEUE_FULL past `maxRequestDtos`, and the iov's own checks (zone, access).
   */
  postSend(iov: Iov, cookie: unknown, options?: PostOptions): void;
  /**
   * Allowed before the connection is established, so receives can be pre-posted. INVALID_STATE on
   * an endpoint created on a shared receive queue (post to the queue).
   */
  postRecv(iov: Iov, cookie: unknown): void;
  /**
   * Write the bytes of `iov` into the peer's exposed memory `remote` (with `immediate`, also raise
   * a `recv-immediate` completion there); `cookie` comes back in the completion.
   * @throws DatError as `postSend`, and when the provider lacks the `rdma-write` (or
   * `rdma-write-immediate`) capability; INVALID_PARAMETER or LENGTH_ERROR for a bad `remote`.
   */
  postRdmaWrite(iov: Iov, cookie: unknown, remote: RmrTriplet, options?: RdmaWriteOptions): void;
  /**
   * Read the peer's exposed memory `remote` into `iov`; `cookie` comes back in the completion.
   * @throws DatError as `postRdmaWrite`, with the `rdma-read` capability.
   */
  postRdmaRead(iov: Iov, cookie: unknown, remote: RmrTriplet, options?: PostOptions): void;
  /** Back to UNCONNECTED after a disconnect, for reuse. */
  reset(): void;
  /**
   * Release the endpoint: a live connection closes, pending requests and receives flush.
   * @throws DatError INVALID_HANDLE if already freed.
   */
  free(): void;
}
