/**
 * @packageDocumentation
 * `@dapl/provider-combuf`: simulated Hitachi SR8000 remote DMA (Tatebe et al., the combuf library, the FMPL paper) under
 * the virtual-time kernel. All IAs of one provider object are nodes of one machine in this process;
 * every DAT operation is a remote DMA described by a TCW: bytes really move between the nodes'
 * registered memory, and each transfer's time follows model.ts: send right on first use, TCW
 * creation unless one is reused, the kick, the 2-D crossbar at 1000 MB/s half duplex.
 *
 * @example
 * ```ts
 * import { createCombufProvider } from '@dapl/provider-combuf';
 * const combuf = createCombufProvider({ kernel });
 * const ia = await combuf.openIa({}, runtime); // runtime.clock = kernel.clock(rank)
 * ia.counters().tcwReused;
 * ```
 */
export {
  combufProvider,
  combufProvider as default,
  combufProvider as provider,
  createCombufProvider,
  type CombufProvider,
  type CombufProviderOptions,
} from './provider.js';
export { COMBUF_PARAMETERS, type CombufParameters } from './params.js';
export { COMBUF_MODEL, type CombufModel } from './model.js';
export { nicOverheadNs, LATENCY_REFERENCE_BYTES } from './fabric.js';
export type { CombufIa } from './ia.js';
export type { CombufHwCollectives } from './hw-collectives.js';
