import type { Endpoint, RmrTriplet } from '@dapl/core';
import type { RecvRequest } from '../../adi/requests.js';
import type { PeerLink } from './peer-link.js';
import type { EagerBuffer } from './slot.js';

/** An arrived message's device record (the `deviceState` of its `IncomingMessage`). */
export interface Arrival {
  /** The receive buffer (or fastbox) holding eager data, until it is re-posted (released). */
  slot: EagerBuffer | undefined;
  /** The endpoint the message arrived on (replies and re-posts go there). */
  readonly ep: Endpoint;
  readonly link: PeerLink;
  readonly senderRequest: number;
  /** RTS by read: where the sender exposed the data. */
  readonly remote: RmrTriplet | undefined;
  /** Eager data copied out of its buffer (counted in the unexpected bytes until consumed). */
  copied: boolean;
  /** Written straight into this advertised receive (receiver-initiated rendezvous). */
  readonly advertised?: RecvRequest;
  /** The message's epoch and ordinal among its context and tag's messages from this peer. */
  readonly epoch: number;
  readonly ordinal: number;
  /** An RTS whose sender writes into the receive it matches if that receive's advertisement reaches it. */
  readonly claimable?: boolean;
}
