/**
 * @packageDocumentation
 * `@dapl/provider-ib`: simulated InfiniBand RC queue pairs (uDAPL over VAPI, the MVAPICH2-over-uDAPL paper (Chai et al.)) under the
 * virtual-time kernel. All IAs of one provider object are nodes of one subnet in this process;
 * bytes really move between their registered memory, and each DTO's time follows model.ts:
 * post overhead, PCI-X DMA (none for inline sends), 4X link with MTU packets, ACKs, RNR retries.
 *
 * @example
 * ```ts
 * import { createIbProvider } from '@dapl/provider-ib';
 * const ib = createIbProvider({ kernel });
 * const ia = await ib.openIa({}, runtime); // runtime.clock = kernel.clock(rank)
 * ```
 */
export { ibProvider, ibProvider as default, ibProvider as provider, createIbProvider, type IbProvider, type IbProviderOptions } from './provider.js';
export { IB_PARAMETERS, type IbParameters } from './params.js';
export { IB_MODEL, type IbModel } from './model.js';
export { RNR_RETRY_FOREVER } from './progress.js';
export type { IbIa } from './ia.js';
