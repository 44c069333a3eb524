import { EpState } from '../../dat/endpoint.js';
import type { EvdQueue } from '../evd-queue.js';
import { ConnectionRequestBase, PspBase } from '../psp-base.js';
import type { SimEndpoint } from './sim-endpoint.js';
import type { SimIa } from './sim-ia.js';

/** A listener on a conn-qual of one simulated IA. */
export class SimPsp extends PspBase {
  constructor(
    override readonly ia: SimIa,
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
export class SimConnectionRequest extends ConnectionRequestBase<SimEndpoint> {
  constructor(
    psp: SimPsp,
    private readonly client: SimEndpoint,
    privateData: Uint8Array,
  ) {
    super(psp, client.ia.address, privateData);
  }

  protected doAccept(ep: SimEndpoint, privateData: Uint8Array): void {
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

  /** The answer travels one set-up leg from `ia`'s node (never before the kernel's now: accept may run outside the rank's time). */
  private later(ia: SimIa, action: () => void): void {
    const fabric = ia.fabric;
    fabric.kernel.schedule(Math.max(ia.clock.nowNs, fabric.kernel.now) + fabric.params.cmDelayNs, action);
  }
}
