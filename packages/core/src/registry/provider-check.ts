import { DAT_PROVIDER_BRAND, DTO_CAPABILITIES, SUPPORTED_PROVIDER_API_VERSIONS } from '../dat/provider.js';
import type { DatProvider, ParameterSpec } from '../dat/provider.js';
import { EXTENSION_NAMES } from '../dat/extensions.js';
import { parseParameterValue } from '../config/parameter-value.js';

const BRAND_TEXT = "Symbol.for('@dapl/core/provider')";
const PARAMETER_TYPES = new Set(['integer', 'number', 'boolean', 'string', 'enum']);

/**
 * True for an object carrying the provider brand with a name and `openIa` (the brand is a
 * `Symbol.for` symbol, so this holds across two copies of core).
 */
export function isDatProvider(x: unknown): x is DatProvider {
  if (typeof x !== 'object' || x === null) return false;
  const p = x as Record<PropertyKey, unknown>;
  return p[DAT_PROVIDER_BRAND] === true && typeof p.name === 'string' && typeof p.openIa === 'function';
}

/** The provider a module exports, or what was found there and why it was refused. */
export type ProviderCheck = { readonly provider: DatProvider } | { readonly found: string; readonly refused: string };

/** Pick the provider out of a module's exports (`default`, else `provider`) and check it. */
export function checkProviderModule(exports: Record<string, unknown>): ProviderCheck {
  const names = Object.keys(exports);
  const candidates = (['default', 'provider'] as const).filter((n) => isObjectLike(exports[n]));
  const branded = candidates.find((n) => (exports[n] as Record<PropertyKey, unknown>)[DAT_PROVIDER_BRAND] === true);
  if (branded === undefined) {
    if (candidates.length === 0) {
      return {
        found: `exports ${names.length === 0 ? '(none)' : names.join(', ')}, none of them an object named default or provider`,
        refused: 'a provider module must export the provider object as `default` or as `provider`',
      };
    }
    return {
      found: `export ${candidates.map((n) => `"${n}"`).join(' and ')} without the provider brand ${BRAND_TEXT}`,
      refused: 'it is not a dapl.ts provider object (providers set `[DAT_PROVIDER_BRAND]: true`)',
    };
  }
  const problems = describeProviderProblems(exports[branded] as Record<PropertyKey, unknown>);
  if (problems.length > 0) return { found: `export "${branded}": ${problems.join('; ')}`, refused: 'the provider object is invalid' };
  return { provider: exports[branded] as DatProvider };
}

/** What is wrong with a branded provider object; empty when it is fine. Core checks declared data once here. */
export function describeProviderProblems(p: Record<PropertyKey, unknown>): string[] {
  const problems: string[] = [];
  if (typeof p.apiVersion !== 'number' || !SUPPORTED_PROVIDER_API_VERSIONS.includes(p.apiVersion)) {
    problems.push(`apiVersion ${String(p.apiVersion)}, this core supports apiVersion ${SUPPORTED_PROVIDER_API_VERSIONS.join(', ')}`);
    return problems; // another API version may legitimately differ in everything else
  }
  if (typeof p.name !== 'string' || p.name === '') problems.push('name must be a non-empty string');
  if (typeof p.openIa !== 'function') problems.push('openIa must be a function');
  if (p.description !== undefined && typeof p.description !== 'string') problems.push('description must be a string');
  problems.push(...describeCapabilityProblems(p.capabilities));
  problems.push(...describeParameterProblems(p.parameters));
  return problems;
}

function describeCapabilityProblems(caps: unknown): string[] {
  if (typeof caps !== 'object' || caps === null) return ['capabilities must be an object { dto, extensions, inProcess }'];
  const c = caps as Record<string, unknown>;
  const problems: string[] = [];
  const listProblem = (field: string, allowed: readonly string[]): void => {
    const list = c[field];
    if (!Array.isArray(list)) problems.push(`capabilities.${field} must be an array`);
    else for (const x of list) if (!allowed.includes(x as string)) problems.push(`capabilities.${field} has ${JSON.stringify(x)}, allowed: ${allowed.join(', ')}`);
  };
  listProblem('dto', DTO_CAPABILITIES);
  listProblem('extensions', EXTENSION_NAMES);
  if (typeof c.inProcess !== 'boolean') problems.push('capabilities.inProcess must be a boolean');
  if (c.workerThreads !== undefined && typeof c.workerThreads !== 'boolean') problems.push('capabilities.workerThreads must be a boolean when given');
  return problems;
}

function describeParameterProblems(params: unknown): string[] {
  if (!Array.isArray(params)) return ['parameters must be an array of ParameterSpec'];
  const problems: string[] = [];
  const seen = new Set<string>();
  params.forEach((raw: unknown, i) => {
    const spec = raw as Partial<ParameterSpec> | null;
    const at = `parameters[${i}]`;
    if (typeof spec !== 'object' || spec === null) return void problems.push(`${at} must be an object`);
    if (typeof spec.name !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(spec.name)) return void problems.push(`${at}.name must be camelCase`);
    if (seen.has(spec.name)) problems.push(`${at}.name ${spec.name} is declared twice`);
    seen.add(spec.name);
    if (!PARAMETER_TYPES.has(spec.type as string)) return void problems.push(`${at} (${spec.name}).type must be one of ${[...PARAMETER_TYPES].join(', ')}`);
    if (spec.type === 'enum' && (!Array.isArray(spec.values) || spec.values.length === 0)) problems.push(`${at} (${spec.name}) is an enum without values`);
    if (typeof spec.help !== 'string') problems.push(`${at} (${spec.name}).help must be a string`);
    try {
      parseParameterValue(spec as ParameterSpec, spec.default, 'its declaration');
    } catch (e) {
      problems.push(`${at} (${spec.name}) default is invalid: ${(e as Error).message}`);
    }
  });
  return problems;
}

function isObjectLike(x: unknown): boolean {
  return (typeof x === 'object' && x !== null) || typeof x === 'function';
}
