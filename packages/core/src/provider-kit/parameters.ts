import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { ParameterSpec } from '../dat/provider.js';
import { parseParameterValue, type ParameterValue } from '../config/parameter-value.js';

/**
 * A provider's parameters from what the consumer (or core's config) passed: each declared
 * one parsed and range-checked, defaults for the rest, and an undeclared name refused.
 */
export function resolveProviderParameters(
  provider: string,
  specs: readonly ParameterSpec[],
  raw: Readonly<Record<string, unknown>> | undefined,
): Record<string, ParameterValue> {
  const values: Record<string, ParameterValue> = {};
  const given = raw ?? {};
  for (const name of Object.keys(given)) {
    if (!specs.some((s) => s.name === name)) {
      throw new DatError(
        DatStatus.INVALID_PARAMETER,
        `provider ${provider} has no parameter ${JSON.stringify(name)}; it declares: ${specs.map((s) => s.name).join(', ') || 'none'}`,
        { argument: `${provider}.${name}` },
      );
    }
  }
  for (const spec of specs) {
    const value = given[spec.name];
    values[spec.name] = value === undefined ? spec.default : parseParameterValue(spec, value, 'openIa options.parameters', `${provider}.${spec.name}`);
  }
  return values;
}
