/**
 * The simulated-provider kit: what ib, lapi and combuf share on top of the provider kit. A simulated
 * provider fills its model, parameters, limits and the timing of its own data path; the kit owns
 * the provider object, the fabric's bookkeeping, the IA, listeners, connection set-up and the
 * endpoint's view for the data path.
 */
export { EvdWaits, type EvdRole } from './evd-waits.js';
export { PER_IA_PARAMETER_NAMES, type SimParameters } from './sim-parameters.js';
export { SimFabric } from './sim-fabric.js';
export { SimConnectionRequest, type SimPsp } from './sim-psp.js';
export { SimEndpoint, type SimDataPath } from './sim-endpoint.js';
export {
  deliverable,
  DTO_SUCCESS,
  initiatorDone,
  resumeFlight,
  SimDataPathBase,
  type DtoOutcome,
  type FlightPath,
  type InitiatorDone,
  type ReadResponse,
  type SimFlight,
  type TargetDone,
} from './sim-data-path.js';
export { SimIa, type SimIaPlace } from './sim-ia.js';
export { createSimProvider, type SimProvider, type SimProviderDefinition, type SimProviderOptions } from './sim-provider.js';
