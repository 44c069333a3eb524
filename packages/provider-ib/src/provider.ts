import { createSimProvider, type SimProvider, type SimProviderOptions } from '@dapl/core/provider-kit';
import { IB_CAPABILITIES, ibLimits } from './attr.js';
import { IbFabric } from './fabric.js';
import { IbIa } from './ia.js';
import { IB_PARAMETERS, resolveIbParameters } from './params.js';

/** Options of `createIbProvider` (default name `ib`). */
export type IbProviderOptions = SimProviderOptions;

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export type IbProvider = SimProvider;

/**
 * A simulated InfiniBand subnet: every IA opened from the returned object is a node of one fabric
 * (kernel, network model, PCI-X buses). Bytes really move; time is modelled (model.ts).
 */
export function createIbProvider(options: IbProviderOptions = {}): IbProvider {
  return createSimProvider(
    {
      name: 'ib',
      description: 'simulated InfiniBand RC queue pairs (uDAPL over VAPI, MT23108 on PCI-X, 4X links) under the virtual-time kernel',
      capabilities: IB_CAPABILITIES,
      parameters: IB_PARAMETERS,
      resolveParameters: resolveIbParameters,
      createFabric: (kernel, params) => new IbFabric(kernel, params),
      limits: ibLimits,
      address: (node) => `ib:${node + 1}`,
      openIa: (init, place) => new IbIa(init, place),
    },
    options,
  );
}

/** The default ib provider (one fabric on its own kernel). */
export const ibProvider: IbProvider = createIbProvider();
