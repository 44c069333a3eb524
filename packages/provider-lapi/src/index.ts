/**
 * @packageDocumentation
 * `@dapl/provider-lapi`: a simulated IBM RS/6000 SP switch with LAPI (Banikazemi et al., the MPI-LAPI paper) under the
 * virtual-time kernel. DAT is implemented on LAPI's primitives: a send is an Amsend whose header
 * handler picks the posted receive, RDMA write a Put, RDMA read a Get, write with immediate a Put and
 * a notification. All IAs of one provider object are nodes of one switch in this process; bytes
 * really move, and each DTO's time follows model.ts.
 *
 * @example
 * ```ts
 * import { createLapiProvider } from '@dapl/provider-lapi';
 * const lapi = createLapiProvider({ kernel, parameters: { mode: 'interrupt' } });
 * const ia = await lapi.openIa({}, runtime); // runtime.clock = kernel.clock(rank)
 * ```
 */
export { lapiProvider, lapiProvider as default, lapiProvider as provider, createLapiProvider, type LapiProvider, type LapiProviderOptions } from './provider.js';
export { LAPI_PARAMETERS, type LapiParameters } from './params.js';
export { LAPI_MODEL, type LapiModel, type LapiMode, type LapiCompletionHandler } from './model.js';
export type { LapiIa } from './ia.js';
