import type { BoundPsp } from '../bound-psp.js';
import { PairingConnectionRequest } from '../pairing-connection-request.js';
import type { SimEndpoint } from './sim-endpoint.js';
import type { SimIa } from './sim-ia.js';

/** A listener on a conn-qual of one simulated IA. */
export type SimPsp = BoundPsp<SimIa>;

/** A request from a client endpoint; the answer travels one set-up leg of the answering side's node. */
export class SimConnectionRequest extends PairingConnectionRequest<SimEndpoint> {
  /** Never before the kernel's now: accept may run outside the rank's time. */
  protected later(from: SimEndpoint, action: () => void): void {
    const ia = from.ia;
    const fabric = ia.fabric;
    fabric.kernel.schedule(Math.max(ia.clock.nowNs, fabric.kernel.now) + fabric.params.cmDelayNs, action);
  }
}
