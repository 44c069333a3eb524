export { createLoopbackProvider, type LoopbackProvider } from './provider.js';
export type { LoopbackIa } from './ia.js';
