/**
 * @packageDocumentation
 * `@dapl/fmpl`: FMPL, the fast message-passing library for remote memory operations (Tatebe et al., the FMPL paper), on
 * any DAT provider: sender-side matching by matching-area index (zero copy in one round trip, or
 * one copy after a timeout), a separate any-source domain, and collectives on the hardware
 * (`hw-collectives`) when usable, else binary trees.
 *
 * @example
 * ```ts
 * import { Fmpl } from '@dapl/fmpl';
 * const fmpl = await Fmpl.init({ matchingAreas: 16 });
 * if (fmpl.rank === 0) await fmpl.send(new Float64Array([1, 2]), 1, 3);
 * if (fmpl.rank === 1) await fmpl.recv(new Float64Array(2), 0, 3);
 * await fmpl.finalize();
 * ```
 */
export { Fmpl, FmplComm, FMPL_ANY_TAG, FMPL_SUM, FMPL_MAX, FMPL_MIN, type FmplInitOptions, type FmplReduceFunction } from './fmpl.js';
export { FmplError, FmplCode } from './errors.js';
export type { Received, PathCounters } from './engine.js';
