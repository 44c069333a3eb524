import type { Logger } from 'pino';
import type { Endpoint, EndpointCreateAttributes } from '../../dat/endpoint.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import type { SharedReceiveQueue } from '../../dat/srq.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { ProtectionZone } from '../../dat/pz.js';

/** How the connection service is built: its protection zone, its event dispatchers, endpoint attributes and timeouts. */
export interface ConnectionsOptions {
  /** Default `ia.createPz()` (freed by `close()`). */
  readonly pz?: ProtectionZone;
  /** EVDs shared by every peer's endpoint (an upper library drains them in one place). Default: created (freed by `close()`). */
  readonly evds?: { readonly recv: EventDispatcher; readonly request: EventDispatcher };
  readonly attributes?: EndpointCreateAttributes;
  /**
   * Called once, with the service's IA and zone, before any endpoint is made: a shared receive
   * queue every peer endpoint is then created on (undefined: none). The service frees it on close.
   */
  readonly sharedReceiveQueue?: (ia: InterfaceAdapter, pz: ProtectionZone) => SharedReceiveQueue | undefined;
  /** Called once per peer endpoint BEFORE it connects or is accepted, e.g. to pre-post receives. */
  readonly prepare?: (ep: Endpoint, peer: number) => void;
  /** KVS key prefix; rank r publishes `<prefix>-<r>`. Default `dapl-ep`. */
  readonly keyPrefix?: string;
  /** How long `endpoint(peer)` waits for a connection. Default 10 000 ms. */
  readonly connectTimeoutMs?: number;
  /** Parent logger; the service logs as `core:Connections`. Default: silent. */
  readonly logger?: Logger;
}

/**
 * On-demand endpoints to the other ranks of a job (DESIGN §5, Chai et al. §3.1): a rank serves the
 * ranks above it and is a client of the ranks below it, and a pair is connected on first use.
 */
export interface Connections {
  readonly rank: number;
  readonly size: number;
  /** The zone every endpoint of the service is in: register memory for them here. */
  readonly pz: ProtectionZone;
  /** Where every endpoint's receive and request completions arrive. */
  readonly evds: { readonly recv: EventDispatcher; readonly request: EventDispatcher };
  /**
   * The connected endpoint to `peer` (0 ≤ peer < size), connecting on first use. `peer === rank`
   * gives a loopback connection through the provider to this rank's own PSP (two endpoints, both
   * reporting to the shared EVDs): a job of size 1 works like any other.
   */
  endpoint(peer: number): Promise<Endpoint>;
  /** The peer of an endpoint this service made (for events that arrive on the shared EVDs). */
  peerOf(ep: Endpoint): number | undefined;
  /** Established connections now. */
  readonly openConnections: number;
  /** Disconnect every endpoint (waiting, bounded, for the peers to confirm), then free what the service made. */
  close(): Promise<void>;
}

/** The KVS key prefix under which ranks publish their endpoint addresses. */
export const DEFAULT_KEY_PREFIX = 'dapl-ep';
/** How long a connection to a peer may take by default. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
