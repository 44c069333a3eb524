/**
 * @packageDocumentation
 * `@dapl/core`: the DAT API (interfaces, events, statuses, `DatError`), the provider registry and
 * configuration, the runtime, and the composition root. Providers build on
 * `@dapl/core/provider-kit`; provider tests run `@dapl/core/testing`.
 *
 * @example
 * ```ts
 * import { DaplConfig, createContainer, InterfaceAdapter } from '@dapl/core';
 * const container = await createContainer(await DaplConfig.load());
 * const ia = await container.getAsync(InterfaceAdapter);
 * const { limits } = ia.query();
 * ```
 */
export * from './dat/index.js';
export type { Clock } from './runtime/runtime.js';
export * from './config/index.js';
export * from './registry/index.js';
export * from './logging/index.js';
export * from './container/index.js';
export { RootLogger, LoggerFactory, Runtime, DatProvider, InterfaceAdapter, EndpointPreparer, SharedReceiveQueueMaker } from './container/tokens.js';
export { SingletonRuntime, type SingletonRuntimeOptions } from './runtime/singleton-runtime.js';
export { WallClock } from './runtime/wall-clock.js';
export { DeclaredWaits, processWaits, type DeclaredWait, type WaitReport } from './runtime/declared-waits.js';
export { createLocalJob, PMI_KEY_MAX, PMI_VALUE_MAX, type LocalJobOptions, type LocalWaitHook } from './runtime/local-job.js';
export { resolveJobKey, JOB_KEY_KVS_KEY, GENERATED_JOB_KEY_BYTES } from './runtime/job-key.js';
export { startConnections, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_KEY_PREFIX, type Connections, type ConnectionsOptions } from './runtime/connections/index.js';
export { runtimeFromEnvironment } from './runtime/runtime-from-environment.js';
export { workerRank, THREAD_EXIT_CHANNEL, type WorkerRank, type ThreadExitNotice } from './runtime/worker-rank.js';
export { spawnWorkerRank } from './launcher/worker/spawn-worker-rank.js';
export type { RankProcess, RankExit, RankSpawnRequest } from './launcher/rank-process.js';
export { localProcesses, spansHosts, launcherAddress, requireLocalProcessesOption, LOCAL_RANKS_ENV, LOCAL_RANK_ENV } from './runtime/local-processes.js';
export {
  PmiRuntime,
  PmiServer,
  PmiLineReader,
  PmiWireError,
  parsePmiLine,
  formatPmiLine,
  isPmiWireError,
  readPmiEnvironment,
  hasPmiEnvironment,
  HYDRA_PMI_LIMITS,
  PMI_MAX_LINE_BYTES,
  Pmi2Runtime,
  Pmi2WireError,
  Pmi2FrameReader,
  formatPmi2Command,
  parsePmi2Payload,
  isPmi2WireError,
  pmiVersionFor,
  PMI_VERSION_ENV,
  parseProcessMapping,
  localRanksFromMapping,
  type Pmi2Identity,
  type Pmi2WireProblem,
  type PmiVersion,
  type PmiRuntimeOptions,
  type PmiServerOptions,
  type PmiIdentity,
  type PmiLimits,
  type PmiMessage,
  type PmiFieldsInput,
  type PmiEnvironment,
  type PmiLine,
} from './runtime/pmi/index.js';
export { Job, RunExitCode, parseRunArguments, type JobOutcome, type RunRequest } from './launcher/index.js';
export type { JobSpec } from './launcher/job.js';
export type { LauncherClock, LauncherTimer } from './launcher/launcher-clock.js';
export type { ImportProgram } from './launcher/in-process/in-process-job.js';
export type { InterruptSource } from './launcher/in-process/run-in-process.js';
export type { ProcessMappingBlock } from './runtime/pmi/process-mapping.js';
export type { Pmi2Frame, Pmi2FieldsInput, Pmi2LengthStyle } from './runtime/pmi/pmi2-wire.js';
export { rankContext, type RankContext } from './runtime/rank-context.js';
export * from './sim/index.js';
export { runInProcess, type RunInProcessOptions, type RunRanks, type RankMain } from './launcher/in-process/index.js';
export { startJob, jobConfig, type DaplJob, type StartJobOptions } from './runtime/start-job.js';
export { describeValue } from './util/describe-value.js';
export { RegistrationCache, type PinnedRegistration } from './util/registration-cache.js';
export { defer } from './util/defer.js';
export { Fifo } from './util/fifo.js';
export { runCli, COMMANDS, ExitCode, UsageError, type CliCommand, type CliIo, type CliOption, type ParsedArgs, type TextSink, type RunCliOptions } from './cli/index.js';
