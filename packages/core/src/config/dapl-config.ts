import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ParameterSpec } from '../dat/provider.js';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { parseParameterValue, type ParameterValue } from './parameter-value.js';
import { environmentName, environmentPrefix, fromScreamingSnake, parameterKey } from './parameter-keys.js';
import { readConfigFile, type ConfigFileContents, type ConfiguredProvider } from './config-file.js';
import { decodeJobKey } from './job-key.js';
import {
  CONFIG_FILE_ENV,
  DAT_OVERRIDE_ENV,
  DEFAULT_CONFIG_FILE_NAME,
  JOB_KEY_ENV,
  CORE_VARIABLES,
  LOG_LEVEL_PARAMETER,
  PROVIDER_PARAMETER,
  type LogLevel,
} from './core-parameters.js';

/** An environment: `process.env` in production, a plain object in tests. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Where a value came from: `default`, `file <path>`, `env DAPL_X` or `flag --x`. */
export type ValueSource = 'default' | `file ${string}` | `env ${string}` | `flag --${string}`;

/** One resolved parameter with where its value came from (what `dapl info` prints). */
export interface ExplainedParameter {
  /** Dotted key, e.g. `mpi.eagerLimit`. */
  readonly key: string;
  readonly value: ParameterValue;
  readonly source: ValueSource;
  /** The environment variable that would set it. */
  readonly env: string;
}

/** A section's parameters resolved: values by name, and each value's origin. */
export interface ResolvedSection {
  readonly values: Readonly<Record<string, ParameterValue>>;
  readonly sources: Readonly<Record<string, ExplainedParameter>>;
}

/** A key set for a section that no declared parameter of it reads (most likely a typo). */
export interface UnknownKey {
  readonly key: string;
  readonly source: ValueSource;
}

/** The layers the `DaplConfig` constructor resolves from, each optional. */
export interface DaplConfigSources {
  /** Environment variables; default: none (the constructor never reads `process.env`). */
  readonly env?: Environment;
  /** Command-line values by dotted key (`provider`, `log.level`, `tcp.interface`). */
  readonly flags?: Readonly<Record<string, unknown>>;
  readonly file?: ConfigFileContents;
  /** Base of relative paths in the environment (`DAT_OVERRIDE`); default `process.cwd()`. */
  readonly cwd?: string;
}

/** Options of `DaplConfig.load`, which reads the environment and the config file itself. */
export interface DaplConfigLoadOptions {
  /** Default: `process.env`. */
  readonly env?: Environment;
  /** Default: `process.cwd()`. */
  readonly cwd?: string;
  readonly flags?: Readonly<Record<string, unknown>>;
  /** A config file named on the command line (`--config`); beats `DAPL_CONFIG`. */
  readonly configFile?: string;
}

/**
 * The layered configuration (DESIGN §8): flag > environment > config file > default. Values
 * are looked up by declared `ParameterSpec`s and parsed on the way out, so a bad value is an
 * error naming the key, the source and what is allowed. Core's own keys are checked at once.
 */
export class DaplConfig {
  readonly env: Environment;
  readonly cwd: string;
  /** Absolute path of the config file in use, if any. */
  readonly configFile: string | undefined;
  readonly providerKey: string;
  readonly logLevel: LogLevel;
  /** Providers added by the config file's `providers` object. */
  readonly extraProviders: readonly ConfiguredProvider[];
  /** The job secret from `DAPL_JOB_KEY`, decoded; undefined lets the provider make one. */
  readonly jobKey: Uint8Array | undefined;
  /** Absolute path of the dat.conf named by `DAT_OVERRIDE`, if set. */
  readonly datConfPath: string | undefined;

  readonly #flags: Readonly<Record<string, unknown>>;
  readonly #file: ConfigFileContents | undefined;

  constructor(sources: DaplConfigSources = {}) {
    this.env = sources.env ?? {};
    this.cwd = sources.cwd ?? process.cwd();
    this.#flags = sources.flags ?? {};
    this.#file = sources.file;
    this.configFile = sources.file?.path;
    this.extraProviders = sources.file?.providers ?? [];

    this.providerKey = this.get(PROVIDER_PARAMETER.section, PROVIDER_PARAMETER.spec) as string;
    this.logLevel = this.get(LOG_LEVEL_PARAMETER.section, LOG_LEVEL_PARAMETER.spec) as LogLevel;
    const jobKey = this.#envValue(JOB_KEY_ENV);
    this.jobKey = jobKey === undefined ? undefined : decodeJobKey(jobKey, `env ${JOB_KEY_ENV}`);
    const datConf = this.#envValue(DAT_OVERRIDE_ENV);
    this.datConfPath = datConf === undefined ? undefined : resolve(this.cwd, datConf);
  }

  /** Find and read the config file (`--config`, else `DAPL_CONFIG`, else `./dapl.config.json` if present). */
  static async load(options: DaplConfigLoadOptions = {}): Promise<DaplConfig> {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const flags = options.flags ?? {};
    const file = await loadConfigFile(env, cwd, options.configFile ?? stringFlag(flags, 'config'));
    return new DaplConfig({ env, cwd, flags, file });
  }

  /** The effective, parsed value of one parameter. */
  get(section: string | undefined, spec: ParameterSpec): ParameterValue {
    return this.explain(section, spec).value;
  }

  /** The effective value with the layer it came from. */
  explain(section: string | undefined, spec: ParameterSpec): ExplainedParameter {
    const key = parameterKey(section, spec.name);
    const env = environmentName(section, spec.name);
    const layer = this.#findLayer(section, spec.name, key, env);
    const raw = layer === undefined ? spec.default : layer.raw;
    const source: ValueSource = layer === undefined ? 'default' : layer.source;
    return { key, value: parseParameterValue(spec, raw, source, key), source, env };
  }

  /** Every declared parameter of a section: the values to hand to a provider, and their sources. */
  resolveSection(section: string, specs: readonly ParameterSpec[]): ResolvedSection {
    const values: Record<string, ParameterValue> = {};
    const sources: Record<string, ExplainedParameter> = {};
    for (const spec of specs) {
      const explained = this.explain(section, spec);
      values[spec.name] = explained.value;
      sources[spec.name] = explained;
    }
    return { values, sources };
  }

  /**
   * `resolveSection` for a section whose owner (`owner`: "provider tcp") refuses what it does not
   * declare: a key none of `specs` declares, then a bad value, is DatError INVALID_PARAMETER.
   */
  resolveDeclaredSection(section: string, specs: readonly ParameterSpec[], owner: string): ResolvedSection {
    this.requireKnownKeys(section, specs, owner);
    return this.resolveSection(section, specs);
  }

  /**
   * DatError INVALID_PARAMETER naming the first key set for `section` that none of `specs` declares
   * (all of them, with their sources, and the declared ones in the message); `owner` says whose
   * section it is ("provider tcp"). A misspelt setting silently ignored would look like one that
   * does nothing.
   */
  requireKnownKeys(section: string, specs: readonly ParameterSpec[], owner: string): void {
    const unknown = this.unknownKeys(section, specs);
    if (unknown.length === 0) return;
    const known = specs.map((s) => parameterKey(section, s.name)).join(', ') || 'none';
    throw new DatError(DatStatus.INVALID_PARAMETER, `${owner} has no setting ${describeUnknownKeys(unknown)}; it declares: ${known}`, { argument: unknown[0].key });
  }

  /** The sections the config file sets (`"mpi": {…}`), in file order; none without a file. */
  fileSections(): string[] {
    return [...(this.#file?.sections.keys() ?? [])];
  }

  /** Keys set for `section` (in the file, the environment or flags) that none of `specs` declares. */
  unknownKeys(section: string, specs: readonly ParameterSpec[]): UnknownKey[] {
    const declared = new Set(specs.map((s) => s.name));
    const unknown: UnknownKey[] = [];
    for (const name of Object.keys(this.#file?.sections.get(section) ?? {})) {
      if (!declared.has(name)) unknown.push({ key: parameterKey(section, name), source: `file ${this.#file!.path}` });
    }
    // Matched by the variable each setting is read from: a name does not always survive the trip
    // back from SCREAMING_SNAKE (`rdmaMTU` is read from ..._RDMA_MTU, which reads back as `rdmaMtu`).
    const prefix = environmentPrefix(section);
    const variables = new Set(specs.map((s) => environmentName(section, s.name)));
    for (const [variable, value] of Object.entries(this.env)) {
      if (!variable.startsWith(prefix) || value === undefined || value === '' || variables.has(variable) || CORE_VARIABLES.has(variable)) continue;
      unknown.push({ key: parameterKey(section, fromScreamingSnake(variable.slice(prefix.length))), source: `env ${variable}` });
    }
    for (const flag of Object.keys(this.#flags)) {
      if (flag.startsWith(`${section}.`) && !declared.has(flag.slice(section.length + 1))) {
        unknown.push({ key: flag, source: `flag --${flag}` });
      }
    }
    return unknown;
  }

  #findLayer(section: string | undefined, name: string, key: string, env: string): { raw: unknown; source: ValueSource } | undefined {
    if (this.#flags[key] !== undefined) return { raw: this.#flags[key], source: `flag --${key}` };
    const fromEnv = this.#envValue(env);
    if (fromEnv !== undefined) return { raw: fromEnv, source: `env ${env}` };
    const fromFile = section === undefined ? this.#file?.topLevel[name] : this.#file?.sections.get(section)?.[name];
    if (fromFile !== undefined) return { raw: fromFile, source: `file ${this.#file!.path}` };
    return undefined;
  }

  /** An empty variable counts as unset, as shells make `VAR=` easy to leave behind. */
  #envValue(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }
}

async function loadConfigFile(env: Environment, cwd: string, fromFlag: string | undefined): Promise<ConfigFileContents | undefined> {
  if (fromFlag !== undefined) return readConfigFile(resolve(cwd, fromFlag), 'flag --config');
  const fromEnv = env[CONFIG_FILE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return readConfigFile(resolve(cwd, fromEnv), `env ${CONFIG_FILE_ENV}`);
  const inCwd = resolve(cwd, DEFAULT_CONFIG_FILE_NAME);
  return existsSync(inCwd) ? readConfigFile(inCwd, `the current directory ${cwd}`) : undefined;
}

function stringFlag(flags: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = flags[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Unknown keys as messages list them: `tcp.pollus (env DAPL_TCP_POLLUS), tcp.x (file …)`. */
export function describeUnknownKeys(unknown: readonly UnknownKey[]): string {
  return unknown.map((u) => `${u.key} (${u.source})`).join(', ');
}
