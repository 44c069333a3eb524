import { afterEach, describe } from 'vitest';
import { CONFORMANCE_STRICT_ENV } from '../../config/core-parameters.js';
import { DTO_CASES } from './bad-argument-dto-cases.js';
import { OBJECT_CASES } from './bad-argument-cases.js';
import { registerBadArgumentTests } from './bad-arguments.js';
import { resolveFixture, type ConformanceFixture } from './fixture.js';
import { registerFlowTests } from './flow.js';
import { registerFunctionalTests } from './functional.js';
import { Harness } from './harness.js';
import { registerNegativeTests } from './negative.js';
import { registerPeerLossTests } from './peer-loss.js';
import { registerJobSecurityTests } from './security-job.js';
import { registerSecurityTests } from './security.js';
import { registerEvdTests } from './unit-evd.js';
import { registerUnitTests } from './unit.js';

export type { ConformanceFixture } from './fixture.js';

/**
 * The one conformance suite every provider runs, with one call from its test file:
 *
 * ```ts
 * describeProviderConformance({ name: 'tcp', provider, openIa: (o) => provider.openIa(o) });
 * ```
 *
 * Tests that need an optional fixture member or a DTO capability the provider does not
 * declare are skipped with the need in their title; with `DAPL_CONFORMANCE_STRICT=1` they
 * are registered and fail with "missing capability: …" instead.
 */
export function describeProviderConformance(fixture: ConformanceFixture): void {
  const h = new Harness(resolveFixture(fixture), process.env[CONFORMANCE_STRICT_ENV] === '1');
  describe(`DAT conformance: ${fixture.name}`, () => {
    afterEach(() => h.closeAll(), h.testTimeoutMs);
    describe('unit', () => {
      registerUnitTests(h);
      registerEvdTests(h);
    });
    describe('bad arguments', () => registerBadArgumentTests(h, [...OBJECT_CASES, ...DTO_CASES]));
    describe('functional', () => registerFunctionalTests(h));
    describe('security', () => {
      registerSecurityTests(h);
      registerJobSecurityTests(h);
    });
    describe('peer loss', () => registerPeerLossTests(h));
    describe('flow control', () => registerFlowTests(h));
    describe('negative', () => registerNegativeTests(h));
  });
}
