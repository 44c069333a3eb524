import { EpState } from '@dapl/core';
import { ConnectionRequestBase, PspBase, type EvdQueue } from '@dapl/core/provider-kit';
import type { CombufEndpoint } from './ep.js';
import type { CombufIa } from './ia.js';

/** A listener on a conn-qual  of one IA. */
export class CombufPsp extends PspBase {
  constructor(
    override readonly ia: CombufIa,
    connQual: number,
    evd: EvdQueue,
  ) {
    super(ia, connQual, evd);
  }

  protected onFree(): void {
    this.ia.fabric.unbind(this);
  }
}

/** A request from `client`; accepting wires the two endpoints together one set-up leg later. */
export class CombufConnectionRequest extends ConnectionRequestBase<CombufEndpoint> {
  constructor(
    psp: CombufPsp,
    private readonly client: CombufEndpoint,
    privateData: Uint8Array,
  ) {
    super(psp, client.ia.address, privateData);
  }

  protected doAccept(ep: CombufEndpoint, privateData: Uint8Array): void {
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

  private later(ia: CombufIa, action: () => void): void {
    const fabric = ia.fabric;
    fabric.kernel.schedule(Math.max(ia.clock.nowNs, fabric.kernel.now) + fabric.params.cmDelayNs, action);
  }
}
