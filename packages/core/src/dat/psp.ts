import type { InterfaceAdapter } from './ia.js';
import type { EventDispatcher } from './evd.js';
import type { Endpoint } from './endpoint.js';

/** A public service point: where connection requests for one conn-qual arrive (a listen handle). */
export interface PublicServicePoint {
  readonly ia: InterfaceAdapter;
  readonly connQual: number;
  readonly evd: EventDispatcher;
  readonly freed: boolean;
  /**
   * Stop listening on `connQual`.
   * @throws DatError INVALID_HANDLE if already freed.
   */
  free(): void;
}

/** A pending request, delivered in a `connection-request` event. Answer it once. */
export interface ConnectionRequest {
  readonly psp: PublicServicePoint;
  readonly remoteAddress: string;
  readonly privateData: Uint8Array;
  /** Complete the connection on `ep` (UNCONNECTED, same IA); `connection-established` follows. */
  accept(ep: Endpoint, privateData?: Uint8Array): void;
  /** Refuse the connection; the peer's endpoint sees `connection-rejected` with `privateData`. */
  reject(privateData?: Uint8Array): void;
}
