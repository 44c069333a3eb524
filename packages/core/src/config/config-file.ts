import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { ParameterValue } from './parameter-value.js';
import { CORE_PARAMETERS } from './core-parameters.js';
import { resolveModuleSpecifier } from './module-specifier.js';

/** The settings the top level of a config file may hold (core's own, outside any section). */
const TOP_LEVEL = new Set(CORE_PARAMETERS.filter((p) => p.section === undefined).map((p) => p.spec.name));

/** A provider named by configuration: registry key → module specifier, and where that was said. */
export interface ConfiguredProvider {
  readonly key: string;
  /** Absolute path for a relative or absolute path; as written for a bare package name. */
  readonly specifier: string;
  readonly source: string;
}

/** The validated contents of a `dapl.config.json`. */
export interface ConfigFileContents {
  /** Absolute path of the file. */
  readonly path: string;
  /** Top-level scalar keys (`provider`). */
  readonly topLevel: Readonly<Record<string, ParameterValue>>;
  /** `"<section>": { "<key>": value }`, including `log`. */
  readonly sections: ReadonlyMap<string, Readonly<Record<string, ParameterValue>>>;
  readonly providers: readonly ConfiguredProvider[];
}

type JsonObject = Record<string, unknown>;

/**
 * Parse and check the text of a config file. Pure; `path` must be absolute (relative module
 * specifiers in `providers` resolve against its directory).
 */
export function parseConfigFile(text: string, path: string): ConfigFileContents {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw shapeError(path, 'config', `is not valid JSON: ${detail}`, cause);
  }
  if (!isObject(data)) throw shapeError(path, 'config', `must hold a JSON object at the top, found ${kindOf(data)}`);

  const topLevel: Record<string, ParameterValue> = {};
  const sections = new Map<string, Record<string, ParameterValue>>();
  let providers: ConfiguredProvider[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (name.startsWith('$')) continue; // `$schema` and friends: for editors, not for us
    if (name === 'providers') providers = parseProviders(value, path);
    else if (name === 'config') throw shapeError(path, 'config', 'cannot name another config file ("config" key); use DAPL_CONFIG or --config');
    else if (isObject(value)) {
      if (TOP_LEVEL.has(name)) throw shapeError(path, name, `must be a string, number or boolean (a setting, not a section), found ${kindOf(value)}`);
      sections.set(name, parseSection(name, value, path));
    } else if (isScalar(value)) {
      // Only core's own top-level settings live here; a misspelt one must not pass unnoticed.
      if (!TOP_LEVEL.has(name)) throw shapeError(path, name, `is not a top-level setting (known: ${[...TOP_LEVEL].join(', ')}); other settings go in their section, e.g. "mpi": { "eagerLimit": 16384 }`);
      topLevel[name] = value;
    }
    else throw shapeError(path, name, `must be a string, number, boolean or an object of them, found ${kindOf(value)}`);
  }
  return { path, topLevel, sections, providers };
}

/** Read and parse a config file; a missing or unreadable file is an error naming it and who named it. */
export async function readConfigFile(path: string, namedBy: string): Promise<ConfigFileContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(cause)})`;
    throw new DatError(DatStatus.INVALID_PARAMETER, `config file ${path} (from ${namedBy}) ${why}`, { argument: 'config', cause });
  }
  return parseConfigFile(text, path);
}

function parseProviders(value: unknown, path: string): ConfiguredProvider[] {
  if (!isObject(value)) throw shapeError(path, 'providers', `must be an object of "key": "module specifier", found ${kindOf(value)}`);
  const source = `file ${path}`;
  return Object.entries(value).map(([key, specifier]) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(key)) {
      throw shapeError(path, `providers.${key}`, 'is not a valid registry key (letters, digits, ".", "_", "-")');
    }
    if (typeof specifier !== 'string' || specifier.trim() === '') {
      throw shapeError(path, `providers.${key}`, `must be a non-empty module specifier string, found ${kindOf(specifier)}`);
    }
    return { key, specifier: resolveModuleSpecifier(specifier.trim(), dirname(path)), source };
  });
}

function parseSection(section: string, value: JsonObject, path: string): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!isScalar(v)) throw shapeError(path, `${section}.${key}`, `must be a string, number or boolean, found ${kindOf(v)}`);
    out[key] = v;
  }
  return out;
}

function shapeError(path: string, argument: string, what: string, cause?: unknown): DatError {
  const subject = argument === 'config' ? `config file ${path}` : `config file ${path}: ${argument}`;
  return new DatError(DatStatus.INVALID_PARAMETER, `${subject} ${what}`, { argument, cause });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is ParameterValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
