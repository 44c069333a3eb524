import { createSimProvider, type SimProvider, type SimProviderOptions } from '@dapl/core/provider-kit';
import { LAPI_CAPABILITIES, lapiLimits } from './attr.js';
import { LapiFabric } from './fabric.js';
import { LapiIa } from './ia.js';
import { LAPI_PARAMETERS, resolveLapiParameters } from './params.js';

/** Options of `createLapiProvider` (default name `lapi`). */
export type LapiProviderOptions = SimProviderOptions;

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export type LapiProvider = SimProvider;

/**
 * A simulated IBM SP with LAPI: every IA opened from the returned object is a node (task) of one
 * switch (kernel, network model, HAL paths). Bytes really move; time is modelled (model.ts).
 */
export function createLapiProvider(options: LapiProviderOptions = {}): LapiProvider {
  return createSimProvider(
    {
      name: 'lapi',
      description: 'simulated IBM RS/6000 SP switch with LAPI (Amsend/Put/Get, header and completion handlers) under the virtual-time kernel',
      capabilities: LAPI_CAPABILITIES,
      parameters: LAPI_PARAMETERS,
      resolveParameters: resolveLapiParameters,
      createFabric: (kernel, params) => new LapiFabric(kernel, params),
      limits: lapiLimits,
      address: (node) => `lapi:${node}`,
      openIa: (init, place) => new LapiIa(init, place),
    },
    options,
  );
}

/** The default lapi provider (one fabric on its own kernel). */
export const lapiProvider: LapiProvider = createLapiProvider();
