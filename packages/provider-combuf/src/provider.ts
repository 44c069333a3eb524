import { createSimProvider, type SimProvider, type SimProviderOptions } from '@dapl/core/provider-kit';
import { COMBUF_CAPABILITIES, combufLimits } from './attr.js';
import { CombufFabric } from './fabric.js';
import { CombufIa } from './ia.js';
import { COMBUF_PARAMETERS, resolveCombufParameters } from './params.js';

/** Options of `createCombufProvider` (default name `combuf`). */
export type CombufProviderOptions = SimProviderOptions;

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export type CombufProvider = SimProvider;

/**
 * A simulated SR8000: every IA opened from the returned object is a node of one machine (kernel,
 * crossbar network model). Bytes really move; time is modelled (model.ts).
 */
export function createCombufProvider(options: CombufProviderOptions = {}): CombufProvider {
  return createSimProvider(
    {
      name: 'combuf',
      description: 'simulated Hitachi SR8000 combuf remote DMA through TCWs on a 2-D crossbar under the virtual-time kernel',
      capabilities: COMBUF_CAPABILITIES,
      parameters: COMBUF_PARAMETERS,
      resolveParameters: resolveCombufParameters,
      createFabric: (kernel, params) => new CombufFabric(kernel, params),
      limits: combufLimits,
      address: (node) => `combuf:${node}`,
      openIa: (init, place) => new CombufIa(init, place),
    },
    options,
  );
}

/** The default combuf provider (one machine on its own kernel). */
export const combufProvider: CombufProvider = createCombufProvider();
