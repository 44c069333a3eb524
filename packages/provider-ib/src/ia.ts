import { DatError, DatStatus, type EndpointAttributes } from '@dapl/core';
import { SimIa, type KitEvds, type KitPz } from '@dapl/core/provider-kit';
import { IbEndpoint } from './ep.js';
import type { IbFabric } from './fabric.js';

const ADDRESS = /^ib:[1-9][0-9]{0,6}$/;

/** One HCA port of the simulated subnet: node `node`, LID node + 1, address `ib:<lid>`. */
export class IbIa extends SimIa {
  declare readonly fabric: IbFabric;

  override validateAddress(address: string): void {
    if (!ADDRESS.test(address)) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must look like ib:<lid> (lid 1..9999999), got ${JSON.stringify(address.slice(0, 80))}`, { argument: 'address' });
    }
  }

  /** Registration pins pages and writes the HCA's translation table: the registering rank pays. */
  override onRegister(bytes: number): void {
    const p = this.fabric.params;
    this.clock.charge(p.registerRegionNs + Math.ceil(bytes / p.pageBytes) * p.registerPageNs);
  }

  protected createEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): IbEndpoint {
    return new IbEndpoint(this, pz, evds, attributes);
  }
}
