import type { ParameterSpec } from '../dat/provider.js';
import { CORE_PARAMETERS, CORE_VARIABLES } from './core-parameters.js';
import type { DaplConfig } from './dapl-config.js';
import { environmentName, parameterKey } from './parameter-keys.js';

/** A section of settings somebody declares: a provider's, an upper library's, core's own. */
export interface DeclaredSettings {
  readonly section: string;
  readonly parameters: readonly ParameterSpec[];
  /** Whose it is, as messages say it: "provider ib", "library @dapl/mpi". */
  readonly owner: string;
}

/**
 * What a job should warn about in its configuration (Open MPI warns about unknown MCA parameters):
 * a `DAPL_*` variable nothing declares (`DAPL_PROVDER`, `DAPL_LOG_LEVL`), a section or key of the
 * config file nothing declares (`"log": { "levle": … }`), each with the closest declared name; and a
 * bad value in any declared section, also of a provider the job does not use (the one it uses, and
 * the libraries, are checked as errors where they are read). `declared` lists every section but
 * core's own; pass every registered provider's and installed library's.
 */
export function configWarnings(config: DaplConfig, declared: readonly DeclaredSettings[]): string[] {
  const sections: DeclaredSettings[] = [...coreSections(), ...declared];
  const warnings: string[] = [];
  const variables = [...CORE_VARIABLES, ...CORE_PARAMETERS.filter((p) => p.section === undefined).map((p) => environmentName(undefined, p.spec.name))];
  for (const s of sections) for (const p of s.parameters) variables.push(environmentName(s.section, p.name));
  const knownVariables = new Set(variables);
  for (const [variable, value] of Object.entries(config.env)) {
    if (!variable.startsWith('DAPL_') || value === undefined || value === '' || knownVariables.has(variable)) continue;
    warnings.push(`${variable} is set but no dapl setting reads it${suggestion(variable, variables)}`);
  }
  const bySection = new Map(sections.map((s) => [s.section, s]));
  for (const name of config.fileSections()) {
    const owner = bySection.get(name);
    if (owner === undefined) {
      warnings.push(`"${name}" in ${config.configFile} is not a section of any provider or library${suggestion(name, [...bySection.keys()])}`);
      continue;
    }
    const keys = owner.parameters.map((p) => parameterKey(name, p.name));
    for (const unknown of config.unknownKeys(name, owner.parameters)) {
      if (unknown.source.startsWith('file ')) warnings.push(`${unknown.key} in ${config.configFile} is not a setting of ${owner.owner}${suggestion(unknown.key, keys)}`);
    }
  }
  for (const s of declared) {
    try {
      config.resolveSection(s.section, s.parameters);
    } catch (error) {
      warnings.push(`${s.owner}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return warnings;
}

/** Core's own sections (`log`), as declared settings. */
function coreSections(): DeclaredSettings[] {
  const bySection = new Map<string, ParameterSpec[]>();
  for (const p of CORE_PARAMETERS) if (p.section !== undefined) bySection.set(p.section, [...(bySection.get(p.section) ?? []), p.spec]);
  return [...bySection].map(([section, parameters]) => ({ section, parameters, owner: 'dapl core' }));
}

/** "; did you mean X?" for the closest of `known` to `name`, when it is close enough to be a typo. */
function suggestion(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? `; did you mean ${best}?` : '';
}

/** Levenshtein distance (names are short: the quadratic table is nothing). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}
