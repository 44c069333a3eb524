import { EpState } from '../../dat/endpoint.js';
import { ConnectionRequestBase, PspBase, type EvdQueue } from '../../provider-kit/index.js';
import type { LoopbackEndpoint } from './ep.js';
import type { LoopbackIa } from './ia.js';

export class LoopbackPsp extends PspBase {
  constructor(
    override readonly ia: LoopbackIa,
    connQual: number,
    evd: EvdQueue,
  ) {
    super(ia, connQual, evd);
  }

  protected onFree(): void {
    this.ia.fabric.unbind(this);
  }
}

/** A request from `client`, answered by wiring the two endpoints together. */
export class LoopbackConnectionRequest extends ConnectionRequestBase<LoopbackEndpoint> {
  constructor(
    psp: LoopbackPsp,
    private readonly client: LoopbackEndpoint,
    privateData: Uint8Array,
  ) {
    super(psp, client.ia.address, privateData);
  }

  protected doAccept(ep: LoopbackEndpoint, privateData: Uint8Array): void {
    queueMicrotask(() => {
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

  protected doReject(privateData: Uint8Array): void {
    queueMicrotask(() => this.client.rejected(privateData));
  }
}
