/**
 * @packageDocumentation
 * Test support for providers and upper libraries: the one conformance suite every provider
 * runs, and an in-memory loopback provider for fast tests.
 *
 * @example
 * ```ts
 * import { createLoopbackProvider, describeProviderConformance } from '@dapl/core/testing';
 * const provider = createLoopbackProvider();
 * describeProviderConformance({ name: 'loopback', provider, openIa: (o) => provider.openIa(o) });
 * ```
 */
export { describeProviderConformance, type ConformanceFixture } from './conformance/index.js';
export { createLoopbackProvider, type LoopbackProvider } from './loopback/index.js';
export { seededRandom } from './seeded-random.js';
export { nextEvent, runSimPair, simPairRunner, type SimPairBody, type SimPairSide, type SimProviderFactory } from './sim-pair.js';
