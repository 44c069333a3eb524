import { EpState } from '../dat/endpoint.js';
import type { EndpointBase } from './endpoint-base.js';
import { ConnectionRequestBase, type PspBase } from './psp-base.js';

/** An endpoint that an in-process connection request wires to its peer object. */
export interface PairedEndpoint extends EndpointBase {
  /** The client still waits for the answer (it has not given up). */
  awaitingAnswer(): boolean;
  /** The connection attempt fails: the other side went away. */
  peerVanished(reason: string): void;
  /** Wire this endpoint to `peer` (each side is linked to the other before either is told). */
  link(peer: PairedEndpoint): void;
  /** The connection is up, to the endpoint at `remoteAddress`: raise `connection-established`. */
  linked(remoteAddress: string, privateData: Uint8Array | undefined): void;
  /** The server rejected the request, with `privateData`: the connect fails as peer-rejected. */
  rejected(privateData: Uint8Array): void;
}

/** The request each server endpoint accepted last (an endpoint may be reset and accept again). */
const acceptedLast = new WeakMap<PairedEndpoint, PairingConnectionRequest<PairedEndpoint>>();

/**
 * A request between two endpoint objects of one process (the loopback's, a simulated fabric's):
 * accepting links the two once the answer has travelled, unless either side went away meanwhile.
 * A provider says how the answer travels (`later`).
 */
export abstract class PairingConnectionRequest<E extends PairedEndpoint> extends ConnectionRequestBase<E> {
  constructor(
    psp: PspBase,
    private readonly client: E,
    privateData: Uint8Array,
  ) {
    super(psp, client.ia.address, privateData);
  }

  /** Run `action` once an answer sent from `from`'s side has arrived. */
  protected abstract later(from: E, action: () => void): void;

  protected doAccept(ep: E, privateData: Uint8Array): void {
    acceptedLast.set(ep, this);
    this.later(ep, () => {
      // The endpoint has since been reset and has accepted another request: this one is stale.
      if (acceptedLast.get(ep) !== this) {
        this.client.peerVanished('the server endpoint went away before the connection completed');
        return;
      }
      if (!this.client.awaitingAnswer()) {
        ep.peerVanished('the client gave up before the request was accepted');
        return;
      }
      // The server endpoint was freed (its IA closed) or disconnected before this ran.
      if (ep.state !== EpState.PASSIVE_CONNECTION_PENDING) {
        this.client.peerVanished('the server endpoint went away before the connection completed');
        return;
      }
      ep.link(this.client);
      this.client.link(ep);
      ep.linked(this.client.ia.address, undefined);
      this.client.linked(ep.ia.address, privateData);
    });
  }

  /** The answer travels as `later` says; the client's connect then fails as rejected. */
  protected doReject(privateData: Uint8Array): void {
    this.later(this.client, () => this.client.rejected(privateData));
  }
}
