import { randomBytes } from 'node:crypto';
import type { Environment } from '../config/dapl-config.js';
import { CONFIG_CHECKED_ENV, CONFIG_FILE_ENV, JOB_KEY_ENV, PROVIDER_PARAMETER } from '../config/core-parameters.js';
import { encodeJobKey } from '../config/job-key.js';
import { environmentName } from '../config/parameter-keys.js';
import { LOCAL_RANKS_ENV, LOCAL_RANK_ENV } from '../runtime/local-processes.js';

/** The descriptor a rank's PMI socket has in the rank (the 4th stdio entry). */
export const PMI_FD_NUMBER = 3;

export const JOB_KEY_BYTES = 32;

/** Variables of another PMI launcher that would point a rank's client elsewhere (Hydra's port mode). */
const FOREIGN_PMI_VARIABLES = ['PMI_PORT', 'PMI_ID', 'PMI_FD', 'PMI_RANK', 'PMI_SIZE', 'PMI_SPAWNED'] as const;

export interface JobEnvironmentOptions {
  /** Hex text of the job secret (`newJobKey()`). */
  readonly jobKey: string;
  /** `--provider`, passed as `DAPL_PROVIDER`. */
  readonly provider?: string;
  /** `--config` as an absolute path, passed as `DAPL_CONFIG`. */
  readonly configFile?: string;
}

/** A fresh job secret, the same for every rank of one job. */
export function newJobKey(): string {
  return encodeJobKey(new Uint8Array(randomBytes(JOB_KEY_BYTES)));
}

/** What every rank of a job sees: the launcher's environment, the job key, and the provider and config given on the command line. */
export function jobEnvironment(parent: Environment, options: JobEnvironmentOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) if (value !== undefined) env[name] = value;
  for (const name of FOREIGN_PMI_VARIABLES) delete env[name];
  env[JOB_KEY_ENV] = options.jobKey;
  env[CONFIG_CHECKED_ENV] = '1';
  if (options.provider !== undefined) env[environmentName(PROVIDER_PARAMETER.section, PROVIDER_PARAMETER.spec.name)] = options.provider;
  if (options.configFile !== undefined) env[CONFIG_FILE_ENV] = options.configFile;
  return env;
}

/**
 * The job's environment plus this rank's PMI-1 variables, and, as Hydra sets them, the ranks on
 * this host and this one's index among them (`dapl run` starts every rank here).
 */
export function rankEnvironment(job: Readonly<Record<string, string>>, rank: number, size: number): Record<string, string> {
  return { ...job, PMI_FD: String(PMI_FD_NUMBER), PMI_RANK: String(rank), PMI_SIZE: String(size), [LOCAL_RANKS_ENV]: String(size), [LOCAL_RANK_ENV]: String(rank) };
}
