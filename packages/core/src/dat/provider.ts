import type { Logger } from 'pino';
import type { InterfaceAdapter } from './ia.js';
import type { ExtensionName } from './extensions.js';
import type { Runtime } from '../runtime/runtime.js';

/** The brand every provider object carries; checked with `Symbol.for` so two copies of core agree. */
export const DAT_PROVIDER_BRAND: unique symbol = Symbol.for('@dapl/core/provider') as never;

/** The current provider API version; a provider declares the one it was written against (`apiVersion`). */
export const DAT_PROVIDER_API_VERSION = 1;
/** Provider API versions this core accepts. */
export const SUPPORTED_PROVIDER_API_VERSIONS: readonly number[] = [1];

/** Optional data-transfer operations; sends and receives are mandatory. */
export type DtoCapability = 'rdma-write' | 'rdma-read' | 'rdma-write-immediate';
/** Every optional data-transfer operation, in a fixed order. */
export const DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

/** The type of a declared parameter's value (`enum`: one of `values`). */
export type ParameterType = 'integer' | 'number' | 'boolean' | 'string' | 'enum';

/** A declared runtime parameter (libfabric's `fi_param`): what `dapl info` lists. */
export interface ParameterSpec {
  /** camelCase; the environment form is `DAPL_<SECTION>_<NAME_IN_SNAKE_CASE>`. */
  readonly name: string;
  readonly type: ParameterType;
  readonly default: string | number | boolean;
  readonly help: string;
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of an `enum`. */
  readonly values?: readonly string[];
}

/** What a provider can do beyond sends and receives: optional DTOs, extensions, constraints. */
export interface ProviderCapabilities {
  readonly dto: readonly DtoCapability[];
  readonly extensions: readonly ExtensionName[];
  /** True when all ranks of a job must run in one process (simulated hardware). */
  readonly inProcess: boolean;
  /**
   * True when the ranks of a job must be worker threads of one process (they share memory:
   * the shm provider). `dapl run` then starts them as threads instead of processes.
   */
  readonly workerThreads?: boolean;
}

/** Options of `DatProvider.openIa`. */
export interface IaOptions {
  /** Device name, for logs. Default: `<provider>0`. */
  readonly name?: string;
  /** The job secret that connections authenticate with. */
  readonly jobKey?: Uint8Array;
  /** Provider parameters by name; unset ones take their declared default. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** Restrict the IA to these optional DTOs (libfabric's capability hints); the rest answer NOT_IMPLEMENTED. */
  readonly capabilities?: readonly DtoCapability[];
  readonly logger?: Logger;
  /**
   * Processes of the job on this host (a whole number ≥ 1; `startJob` fills it in from the
   * launcher). A provider that spends CPU while it waits, such as tcp's busy polling, does so by
   * default only when the host has a CPU for each. Unset: unknown, and such a provider stays idle.
   */
  readonly localProcesses?: number;
  /**
   * True when the job's ranks run on more than one host (`startJob` fills it in from the launcher),
   * so an IA must listen where the other hosts reach it, not on loopback. Unset: unknown (one host).
   */
  readonly spansHosts?: boolean;
  /**
   * An address of the launcher's host (`PMI_PORT`'s host, Slurm's `SLURM_LAUNCH_NODE_IPADDR`): the
   * interface this host reaches it through is one the other hosts reach too.
   */
  readonly launcherAddress?: string;
}

/** DI token of the provider selected by configuration (async: `getAsync`). */
export const DatProvider: unique symbol = Symbol('DatProvider');

/** A provider: the plug-in a registry key names. */
export interface DatProvider {
  readonly [DAT_PROVIDER_BRAND]: true;
  readonly name: string;
  readonly apiVersion: number;
  readonly description: string;
  readonly capabilities: ProviderCapabilities;
  readonly parameters: readonly ParameterSpec[];
  /** Open one IA of this provider; `runtime` gives the rank's job (key-value space, clock). */
  openIa(options?: IaOptions, runtime?: Runtime): Promise<InterfaceAdapter>;
}
