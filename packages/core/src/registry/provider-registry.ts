import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { DatProvider } from '../dat/provider.js';
import type { ConfiguredProvider } from '../config/config-file.js';
import type { DatConfParseResult } from '../config/dat-conf.js';
import { isPathSpecifier } from '../config/module-specifier.js';
import { BUILTIN_PROVIDERS, BUILTIN_SOURCE } from './builtin-providers.js';
import { importModule, missingModule, packageName, type ModuleImporter } from './import-module.js';
import { checkProviderModule } from './provider-check.js';

/** A definition that lost to an earlier one of the same key. */
export interface ShadowedDefinition {
  readonly specifier: string;
  readonly source: string;
}

/** A registry key, the module it names and where that came from. */
export interface RegistryEntry {
  readonly key: string;
  /** Absolute path, `file:` URL or bare package name. */
  readonly specifier: string;
  /** `built-in`, `file <path>` (dapl.config.json) or `dat.conf <path>:<line>`. */
  readonly source: string;
  /** Definitions of the same key that this one overrides. */
  readonly shadows: readonly ShadowedDefinition[];
}

/** The sources of a registry besides the built-ins: configured providers, a parsed `dat.conf`, and how modules are imported. */
export interface ProviderRegistryOptions {
  /** From `dapl.config.json` `providers`; these win over everything. */
  readonly configured?: readonly ConfiguredProvider[];
  /** A parsed dat.conf (`DAT_OVERRIDE`); its entries win over built-ins. Errors in it are refused. */
  readonly datConf?: DatConfParseResult;
  /** Default: `BUILTIN_PROVIDERS`. */
  readonly builtins?: Readonly<Record<string, string>>;
  readonly importer?: ModuleImporter;
}

/**
 * Maps registry keys to provider modules and loads them. The first definition of a key wins, in
 * the order config file > dat.conf > built-in: what a user configures overrides what ships, and
 * the project's own config file is more specific than a machine-wide dat.conf.
 */
export class ProviderRegistry {
  readonly datConf: DatConfParseResult | undefined;
  readonly #entries = new Map<string, RegistryEntry>();
  readonly #importer: ModuleImporter;
  readonly #loaded = new Map<string, Promise<DatProvider>>();

  constructor(options: ProviderRegistryOptions = {}) {
    this.#importer = options.importer ?? importModule;
    this.datConf = options.datConf;
    if (options.datConf !== undefined && options.datConf.errors.length > 0) {
      const lines = options.datConf.errors.map((e) => e.message).join('\n  ');
      throw new DatError(DatStatus.INVALID_PARAMETER, `dat.conf ${options.datConf.file} (from DAT_OVERRIDE) has malformed lines:\n  ${lines}`, {
        argument: 'DAT_OVERRIDE',
      });
    }
    for (const p of options.configured ?? []) this.#define(p.key, p.specifier, p.source);
    for (const e of options.datConf?.entries ?? []) this.#define(e.iaName, e.specifier, `dat.conf ${options.datConf!.file}:${e.line}`);
    for (const [key, specifier] of Object.entries(options.builtins ?? BUILTIN_PROVIDERS)) this.#define(key, specifier, BUILTIN_SOURCE);
  }

  /** Every key, in definition order. */
  list(): RegistryEntry[] {
    return [...this.#entries.values()];
  }

  /** Whether `key` is registered. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The entry of `key`, or undefined when it is not registered. */
  entry(key: string): RegistryEntry | undefined {
    return this.#entries.get(key);
  }

  /**
   * Import and check the provider for `key` (cached). Every refusal is PROVIDER_NOT_FOUND
   * saying what was looked for, what was found and why it was refused.
   */
  load(key: string): Promise<DatProvider> {
    let pending = this.#loaded.get(key);
    if (pending === undefined) {
      pending = this.#load(key);
      this.#loaded.set(key, pending);
      pending.catch(() => this.#loaded.delete(key)); // a fixed module may load on a later try
    }
    return pending;
  }

  /** The entry for `key`; an unknown key is PROVIDER_NOT_FOUND listing the known keys. */
  lookup(key: string): RegistryEntry {
    const entry = this.#entries.get(key);
    if (entry !== undefined) return entry;
    const known = this.list().map((e) => `${e.key} (${e.source})`).join(', ');
    throw new DatError(DatStatus.PROVIDER_NOT_FOUND, `unknown provider key "${key}"; known keys: ${known || '(none)'}`, { argument: 'provider' });
  }

  async #load(key: string): Promise<DatProvider> {
    const entry = this.lookup(key);
    const what = `provider "${key}" (${entry.source}: ${entry.specifier})`;
    let exports: Record<string, unknown>;
    try {
      exports = await this.#importer(entry.specifier);
    } catch (cause) {
      throw new DatError(DatStatus.PROVIDER_NOT_FOUND, `${what}: ${describeImportFailure(entry.specifier, cause)}`, { argument: 'provider', cause });
    }
    const check = checkProviderModule(exports);
    if ('refused' in check) {
      throw new DatError(DatStatus.PROVIDER_NOT_FOUND, `${what}: found ${check.found}; refused: ${check.refused}`, { argument: 'provider' });
    }
    return check.provider;
  }

  #define(key: string, specifier: string, source: string): void {
    const existing = this.#entries.get(key);
    if (existing === undefined) this.#entries.set(key, { key, specifier, source, shadows: [] });
    else this.#entries.set(key, { ...existing, shadows: [...existing.shadows, { specifier, source }] });
  }
}

function describeImportFailure(specifier: string, cause: unknown): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  switch (missingModule(cause, specifier)) {
    case 'self':
      return isPathSpecifier(specifier)
        ? `module not found: the file ${specifier} does not exist`
        : `module not found: the package ${packageName(specifier)} is not installed`;
    case 'entry':
      return `the package ${packageName(specifier)} is installed but its entry file is missing (is it built?): ${message}`;
    case 'dependency':
      return `the module was found but something it imports was not: ${message}`;
    default:
      return `the module threw while loading: ${message}`;
  }
}
