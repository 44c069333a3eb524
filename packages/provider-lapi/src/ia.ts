import { DatError, DatStatus, type EndpointAttributes } from '@dapl/core';
import { SimIa, type IaBaseInit, type KitEvds, type KitPz, type SimIaPlace } from '@dapl/core/provider-kit';
import { LapiActiveMessages } from './active-messages.js';
import { LapiEndpoint } from './ep.js';
import type { LapiFabric } from './fabric.js';

const ADDRESS = /^lapi:[0-9]{1,7}$/;

/** One LAPI task of the simulated SP: node `node`, address `lapi:<node>`. LAPI calls charge its clock. */
export class LapiIa extends SimIa {
  declare readonly fabric: LapiFabric;
  /** The `active-messages` extension (handlers, counters); peers' messages reach it through the endpoint. */
  readonly am: LapiActiveMessages;

  constructor(init: IaBaseInit, place: SimIaPlace<LapiFabric>) {
    const { fabric, rank, node, clock } = place;
    const am = new LapiActiveMessages(fabric, { kernel: fabric.kernel, rank, address: init.address, timeoutMs: fabric.params.connectTimeoutMs, node, clock });
    super({ ...init, extensions: { ...init.extensions, 'active-messages': am } }, place);
    this.am = am;
  }

  override validateAddress(address: string): void {
    if (!ADDRESS.test(address)) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must look like lapi:<task> (task 0..9999999), got ${JSON.stringify(address.slice(0, 80))}`, { argument: 'address' });
    }
  }

  protected createEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): LapiEndpoint {
    return new LapiEndpoint(this, pz, evds, attributes);
  }
}
