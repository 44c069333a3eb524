import type { Logger } from 'pino';
import type { DatProvider, ParameterSpec, ProviderCapabilities } from '../dat/provider.js';
import type { IaLimits, InterfaceAdapter as DatInterfaceAdapter } from '../dat/ia.js';
import { describeUnknownKeys, type DaplConfig, type UnknownKey } from '../config/dapl-config.js';
import { CORE_PARAMETERS } from '../config/core-parameters.js';
import { environmentName, parameterKey } from '../config/parameter-keys.js';
import { describeAllowed } from '../config/parameter-value.js';
import { loadLibrarySections } from '../config/library-sections.js';
import { packageName } from '../registry/import-module.js';
import type { DatConfSkipped } from '../config/dat-conf.js';
import type { ProviderRegistry, RegistryEntry } from '../registry/provider-registry.js';
import type { Runtime } from '../runtime/runtime.js';
import { closeContainer, createContainer } from '../container/create-container.js';
import { InterfaceAdapter } from '../container/tokens.js';
import { withTimeout } from './with-timeout.js';
import { isDatError } from '../dat/errors.js';

/** One declared parameter and its effective value (or why it has none). */
export interface ParameterInfo {
  readonly key: string;
  readonly type: ParameterSpec['type'];
  readonly default: string | number | boolean;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
  readonly allowed: string;
  readonly help: string;
  readonly env: string;
  readonly value?: string | number | boolean;
  readonly source?: string;
  /** Set when the configured value is invalid. */
  readonly error?: string;
}

export type IaInfo =
  | {
      readonly opened: true;
      readonly name: string;
      readonly address: string;
      readonly limits: IaLimits;
      readonly capabilities: readonly string[];
      readonly extensions: readonly string[];
      readonly parameters: Readonly<Record<string, unknown>>;
    }
  | { readonly opened: false; readonly error: string; /** The DAT status, when a DatError said why. */ readonly status?: string };

interface ProviderInfoBase {
  readonly key: string;
  readonly specifier: string;
  readonly source: string;
  readonly selected: boolean;
}

export interface LoadedProviderInfo extends ProviderInfoBase {
  readonly loaded: true;
  readonly name: string;
  readonly description: string;
  readonly apiVersion: number;
  readonly capabilities: { readonly dto: readonly string[]; readonly extensions: readonly string[]; readonly inProcess: boolean; readonly workerThreads?: true };
  /** What each installed upper library can run on it (`mpi devices: rdma, channel, am`). */
  readonly runs?: readonly { readonly label: string; readonly value: string }[];
  readonly parameters: readonly ParameterInfo[];
  /** Keys configured for this provider's section that it does not declare. */
  readonly unknownKeys: readonly UnknownKey[];
  /** Only for the selected provider. */
  readonly ia?: IaInfo;
}

export interface RefusedProviderInfo extends ProviderInfoBase {
  readonly loaded: false;
  readonly error: string;
}

export type ProviderInfo = LoadedProviderInfo | RefusedProviderInfo;

/** An installed upper library's section of the configuration (`mpi.*`). */
export interface LibraryInfo {
  readonly section: string;
  /** The package that declares it. */
  readonly library: string;
  readonly parameters: readonly ParameterInfo[];
  /** Keys configured for the section that the library does not declare. */
  readonly unknownKeys: readonly UnknownKey[];
}

/** Everything `dapl info` shows, as data: built by `gatherInfo`, printed by `renderInfo*`. */
export interface InfoReport {
  readonly version: string;
  readonly selectedProvider: string;
  readonly configFile?: string;
  readonly datConf?: { readonly path: string; readonly skipped: readonly DatConfSkipped[] };
  readonly jobKey: 'set' | 'unset';
  readonly registry: readonly RegistryEntry[];
  readonly providers: readonly ProviderInfo[];
  /** The sections of the installed upper libraries that have settings. */
  readonly libraries: readonly LibraryInfo[];
  /** Core's own keys. */
  readonly configuration: readonly ParameterInfo[];
}

export interface GatherInfoOptions {
  readonly config: DaplConfig;
  readonly registry: ProviderRegistry;
  readonly logger: Logger;
  /** Limit on opening and on closing the selected provider's IA. */
  readonly iaTimeoutMs: number;
  readonly version: string;
  readonly runtime?: Runtime;
}

export async function gatherInfo(options: GatherInfoOptions): Promise<InfoReport> {
  const { config, registry } = options;
  const sections = await loadLibrarySections();
  const providers: ProviderInfo[] = [];
  for (const entry of registry.list()) {
    const info = await describeProvider(entry, options);
    const runs = info.loaded ? sections.flatMap((l) => (l.supports === undefined ? [] : [l.supports(info.capabilities as ProviderCapabilities)])) : [];
    providers.push(runs.length === 0 || !info.loaded ? info : { ...info, runs });
  }
  const libraries = sections.map((l) => ({
    section: l.name,
    library: packageName(l.specifier),
    parameters: l.parameters.map((spec) => describeParameter(config, l.name, spec)),
    unknownKeys: config.unknownKeys(l.name, l.parameters),
  }));
  return {
    version: options.version,
    selectedProvider: config.providerKey,
    configFile: config.configFile,
    datConf: config.datConfPath === undefined ? undefined : { path: config.datConfPath, skipped: registry.datConf?.skipped ?? [] },
    jobKey: config.jobKey === undefined ? 'unset' : 'set',
    registry: registry.list(),
    providers,
    libraries,
    configuration: CORE_PARAMETERS.map((p) => describeParameter(config, p.section, p.spec)),
  };
}

/** Why the selected provider is unusable because of configuration, or undefined when it is usable. */
export function selectedProviderProblem(report: InfoReport): string | undefined {
  const selected = report.providers.find((p) => p.selected);
  if (selected === undefined) return `provider "${report.selectedProvider}" is not in the registry`;
  if (!selected.loaded) return `the selected provider "${selected.key}" cannot be loaded`;
  return settingsProblem(`the selected provider "${selected.key}"`, 'parameters', selected.parameters, selected.unknownKeys);
}

/** Why an installed library's settings would stop a job (a bad value, an undeclared key), or undefined. */
export function librarySettingsProblem(report: InfoReport): string | undefined {
  for (const l of report.libraries) {
    const problem = settingsProblem(`library ${l.library}`, 'settings', l.parameters, l.unknownKeys);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** `owner`'s invalid values first, then the keys it does not declare; undefined when neither. */
function settingsProblem(owner: string, noun: string, parameters: readonly ParameterInfo[], unknownKeys: readonly UnknownKey[]): string | undefined {
  const bad = parameters.filter((p) => p.error !== undefined).map((p) => p.key);
  if (bad.length > 0) return `${owner} has invalid ${noun}: ${bad.join(', ')}`;
  if (unknownKeys.length > 0) return `${owner} has no setting ${describeUnknownKeys(unknownKeys)}`;
  return undefined;
}

async function describeProvider(entry: RegistryEntry, options: GatherInfoOptions): Promise<ProviderInfo> {
  const base = { key: entry.key, specifier: entry.specifier, source: entry.source, selected: entry.key === options.config.providerKey };
  let provider: DatProvider;
  try {
    provider = await options.registry.load(entry.key);
  } catch (error) {
    return { ...base, loaded: false, error: messageOf(error) };
  }
  const parameters = provider.parameters.map((spec) => describeParameter(options.config, provider.name, spec));
  const canOpen = base.selected && parameters.every((p) => p.error === undefined);
  return {
    ...base,
    loaded: true,
    name: provider.name,
    description: provider.description ?? '',
    apiVersion: provider.apiVersion,
    capabilities: {
      dto: provider.capabilities.dto,
      extensions: provider.capabilities.extensions,
      inProcess: provider.capabilities.inProcess,
      // Only where declared: ranks as worker threads is one provider's launch mode.
      ...(provider.capabilities.workerThreads === true ? { workerThreads: true as const } : {}),
    },
    parameters,
    unknownKeys: options.config.unknownKeys(provider.name, provider.parameters),
    ia: canOpen ? await describeIa(options) : undefined,
  };
}

function describeParameter(config: DaplConfig, section: string | undefined, spec: ParameterSpec): ParameterInfo {
  const declared = {
    key: parameterKey(section, spec.name),
    type: spec.type,
    default: spec.default,
    min: spec.min,
    max: spec.max,
    values: spec.values,
    allowed: describeAllowed(spec),
    help: spec.help,
    env: environmentName(section, spec.name),
  };
  try {
    const explained = config.explain(section, spec);
    return { ...declared, value: explained.value, source: explained.source };
  } catch (error) {
    return { ...declared, error: messageOf(error) };
  }
}

/** Open the selected provider's IA through the composition root, read its attributes, close it. */
async function describeIa(options: GatherInfoOptions): Promise<IaInfo> {
  const container = await createContainer(options.config, { registry: options.registry, rootLogger: options.logger, runtime: options.runtime });
  const opening = container.getAsync<DatInterfaceAdapter>(InterfaceAdapter);
  let info: IaInfo;
  try {
    const ia = await withTimeout(opening, options.iaTimeoutMs, `opening the IA of provider "${options.config.providerKey}"`);
    const attributes = ia.query();
    info = {
      opened: true,
      name: attributes.name,
      address: attributes.address,
      limits: attributes.limits,
      capabilities: attributes.capabilities,
      extensions: attributes.extensions,
      parameters: attributes.parameters,
    };
  } catch (error) {
    // An IA that opens after the time limit is closed when it arrives.
    opening.then(() => closeContainer(container)).catch(() => undefined);
    return { opened: false, error: messageOf(error), status: isDatError(error) ? error.status : undefined };
  }
  try {
    await withTimeout(closeContainer(container), options.iaTimeoutMs, 'closing the IA');
  } catch (error) {
    options.logger.warn({ err: error }, 'dapl info: the IA did not close cleanly');
  }
  return info;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

