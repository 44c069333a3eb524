import type { Container, ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { CONFIG_CHECKED_ENV } from '../config/core-parameters.js';
import { DaplConfig } from '../config/dapl-config.js';
import { configurationWarnings } from '../registry/configuration-warnings.js';
import { createProviderRegistry } from '../registry/create-provider-registry.js';
import { closeContainer, createContainer } from '../container/create-container.js';
import { EndpointPreparer, InterfaceAdapter, RootLogger, SharedReceiveQueueMaker } from '../container/tokens.js';
import type { InterfaceAdapter as DatInterfaceAdapter } from '../dat/ia.js';
import { startConnections } from './connections/connections.js';
import type { Connections, ConnectionsOptions } from './connections/types.js';
import { resolveJobKey } from './job-key.js';
import { rankContext } from './rank-context.js';
import { runtimeFromEnvironment } from './runtime-from-environment.js';
import type { Runtime } from './runtime.js';

/** Options of `startJob`. */
export interface StartJobOptions {
  /** Default: the rank context's, else `DaplConfig.load()` (flags none, environment, dapl.config.json, defaults). */
  readonly config?: DaplConfig;
  /** Default: from the environment (the rank context in-process; PMI under `dapl run` or mpiexec; a singleton under plain node). */
  readonly runtime?: Runtime;
  readonly connections?: ConnectionsOptions;
  /** Upper libraries' container modules. */
  readonly modules?: readonly ContainerModule[];
}

/** A running rank: its place in the job, its opened IA, and on-demand endpoints to the other ranks. */
export interface DaplJob {
  readonly rank: number;
  readonly size: number;
  readonly runtime: Runtime;
  readonly ia: DatInterfaceAdapter;
  readonly connections: Connections;
  readonly container: Container;
  readonly logger: Logger;
  /** Collective: wait for every rank, close the connections and the IA, finalize the runtime. */
  finish(): Promise<void>;
}

/**
 * The configuration a rank's job uses when it is given none: its rank context's (in-process ranks
 * share `process.env`, so theirs comes with the rank), else `DaplConfig.load()`.
 */
export async function jobConfig(): Promise<DaplConfig> {
  const context = rankContext.getStore();
  return context?.config ?? (await DaplConfig.load(context?.env === undefined ? {} : { env: context.env }));
}

/**
 * How a program joins its job, whoever launched it: `dapl run`, MPICH's mpiexec, or plain `node`
 * (a job of size 1). Configuration picks the provider; the job key comes from the launcher or,
 * under a launcher that has none (mpiexec), from rank 0 through the KVS.
 */
export async function startJob(options: StartJobOptions = {}): Promise<DaplJob> {
  const context = rankContext.getStore();
  const config = options.config ?? (await jobConfig());
  const runtime = options.runtime ?? (await runtimeFromEnvironment());
  const jobKey = await resolveJobKey(runtime, config.env);
  const container = await createContainer(config, { runtime, jobKey, modules: options.modules, rootLogger: context?.logger });
  const ia = await container.getAsync<DatInterfaceAdapter>(InterfaceAdapter);
  const logger = container.get<Logger>(RootLogger);
  const prepare = endpointPreparation(container, options.connections?.prepare);
  const sharedReceiveQueue = options.connections?.sharedReceiveQueue ?? (container.isBound(SharedReceiveQueueMaker) ? container.get<SharedReceiveQueueMaker>(SharedReceiveQueueMaker) : undefined);
  const connections = await startConnections(ia, runtime, { logger, ...options.connections, prepare, sharedReceiveQueue });
  // Started without `dapl run` (plain node, mpiexec): rank 0 warns about likely typos, once for the job.
  if (context === undefined && runtime.rank === 0 && config.env[CONFIG_CHECKED_ENV] !== '1') void warnAboutConfiguration(config, logger);
  let finished: Promise<void> | undefined;
  return {
    rank: runtime.rank,
    size: runtime.size,
    runtime,
    ia,
    connections,
    container,
    logger,
    finish() {
      finished ??= closeAll([
        // Nobody closes while a peer may still be writing into its memory.
        () => runtime.barrier(),
        // Every close runs whatever failed before it (a peer that closed its PMI socket fails the
        // barrier): a rank left with an open socket would never exit, nor its `dapl run`.
        () => connections.close(),
        () => closeContainer(container),
        () => runtime.finalize(),
      ]);
      return finished;
    },
  };
}

async function warnAboutConfiguration(config: DaplConfig, logger: Logger): Promise<void> {
  try {
    for (const warning of await configurationWarnings(config, await createProviderRegistry(config))) logger.warn(warning);
  } catch (error) {
    logger.debug({ err: error }, 'the configuration could not be checked for typos');
  }
}

/** Run every step in order, whatever fails; rejects with the first failure once all have run. */
async function closeAll(steps: readonly (() => Promise<void>)[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}

/** The `prepare` hooks of the options and of every module that binds `EndpointPreparer`, as one. */
function endpointPreparation(container: Container, own: EndpointPreparer | undefined): EndpointPreparer | undefined {
  const hooks = container.isBound(EndpointPreparer) ? container.getAll<EndpointPreparer>(EndpointPreparer) : [];
  const all = own === undefined ? hooks : [own, ...hooks];
  if (all.length <= 1) return all[0];
  return (ep, peer) => {
    for (const hook of all) hook(ep, peer);
  };
}
