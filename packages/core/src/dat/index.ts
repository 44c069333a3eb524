/**
 * The DAT API: interfaces, events, statuses and errors. Types only (plus the status enums,
 * the provider brand and `DatError`); behaviour lives in providers and in the provider kit.
 */
export * from './status.js';
export * from './errors.js';
export * from './memory.js';
export * from './pz.js';
export * from './events.js';
export * from './evd.js';
export * from './endpoint.js';
export * from './psp.js';
export * from './srq.js';
export * from './ia.js';
export * from './provider.js';
export * from './extensions.js';
