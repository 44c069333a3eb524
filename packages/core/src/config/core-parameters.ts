import type { ParameterSpec } from '../dat/provider.js';

/** pino's levels plus `silent`, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A parameter of core itself, with the section it lives in (`undefined`: top level). */
export interface CoreParameter {
  readonly section: string | undefined;
  readonly spec: ParameterSpec;
}

/** `provider`: the registry key of the provider to use (default `tcp`). */
export const PROVIDER_PARAMETER: CoreParameter = {
  section: undefined,
  spec: {
    name: 'provider',
    type: 'string',
    default: 'tcp',
    help: 'Registry key of the provider to use (see `dapl info` for the known keys).',
  },
};

/** `log.level`: the level of the pino root logger (default `warn`). */
export const LOG_LEVEL_PARAMETER: CoreParameter = {
  section: 'log',
  spec: {
    name: 'level',
    type: 'enum',
    default: 'warn',
    values: LOG_LEVELS,
    help: 'Level of the pino root logger (logs go to stderr).',
  },
};

/** Every configuration key core reads, in one place; `dapl info` lists them. */
export const CORE_PARAMETERS: readonly CoreParameter[] = [PROVIDER_PARAMETER, LOG_LEVEL_PARAMETER];

/** The file looked for in the current directory when neither `--config` nor `DAPL_CONFIG` names one. */
export const DEFAULT_CONFIG_FILE_NAME = 'dapl.config.json';
/** The config file to read (a path); environment variables below have a fixed meaning outside the `DAPL_<SECTION>_<KEY>` scheme. */
export const CONFIG_FILE_ENV = 'DAPL_CONFIG';
/** The job secret that connections authenticate with, set by the launcher for every rank. */
export const JOB_KEY_ENV = 'DAPL_JOB_KEY';
/** `1`: a simulated job ends with its virtual end time and event rate on stderr. */
export const SIM_REPORT_ENV = 'DAPL_SIM_REPORT';
/** `1`: the launcher (`dapl run`) has warned about the configuration; its ranks need not repeat it. */
export const CONFIG_CHECKED_ENV = 'DAPL_CONFIG_CHECKED';
/** `1`: conformance cases a provider cannot run fail instead of being skipped. */
export const CONFORMANCE_STRICT_ENV = 'DAPL_CONFORMANCE_STRICT';
/** `1` or `2`: speak that PMI version whatever the launcher offers (`auto` or unset: choose; runtime/pmi/pmi-version.ts). */
export const PMI_VERSION_ENV = 'DAPL_PMI_VERSION';
/**
 * Every `DAPL_` variable core reads that is not a setting of a section: never a provider's setting,
 * whatever the provider is called (one named `job` would otherwise claim `DAPL_JOB_KEY`).
 */
export const CORE_VARIABLES: ReadonlySet<string> = new Set([CONFIG_FILE_ENV, JOB_KEY_ENV, SIM_REPORT_ENV, CONFORMANCE_STRICT_ENV, PMI_VERSION_ENV, CONFIG_CHECKED_ENV]);
/** A dat.conf-style file whose entries add to or override the provider registry (the uDAPL variable of that name). */
export const DAT_OVERRIDE_ENV = 'DAT_OVERRIDE';
