import { EpState } from '@dapl/core';
import { ConnectionRequestBase, PspBase, type EvdQueue } from '@dapl/core/provider-kit';
import type { IbEndpoint } from './ep.js';
import type { IbIa } from './ia.js';

/** A listener on a conn-qual (an IB service ID) of one IA. */
export class IbPsp extends PspBase {
  constructor(
    override readonly ia: IbIa,
    connQual: number,
    evd: EvdQueue,
  ) {
    super(ia, connQual, evd);
  }

  protected onFree(): void {
    this.ia.fabric.unbind(this);
  }
}

/** A request from `client`; accepting wires the two QPs together one CM leg later. */
export class IbConnectionRequest extends ConnectionRequestBase<IbEndpoint> {
  constructor(
    psp: IbPsp,
    private readonly client: IbEndpoint,
    privateData: Uint8Array,
  ) {
    super(psp, client.ia.address, privateData);
  }

  protected doAccept(ep: IbEndpoint, privateData: Uint8Array): void {
    this.later(ep.ia, () => {
      if (!this.client.awaitingAnswer()) {
        ep.peerVanished('the client gave up before the request was accepted');
        return;
      }
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
    this.later(this.client.ia, () => this.client.rejected(privateData));
  }

  private later(ia: IbIa, action: () => void): void {
    const fabric = ia.fabric;
    fabric.kernel.schedule(Math.max(ia.clock.nowNs, fabric.kernel.now) + fabric.params.cmDelayNs, action);
  }
}
