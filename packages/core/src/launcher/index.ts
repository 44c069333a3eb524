/** The embedded launcher of `dapl run` (DESIGN §5): N node ranks served by the PMI-1 server. */
export { Job, DEFAULT_GRACE_MS, type JobSpec, type JobCollaborators } from './job.js';
export { describeFailure, exitCodeOf, type JobOutcome, type JobFailure } from './job-outcome.js';
export { RunExitCode, RUN_EXIT_CODE_HELP } from './exit-codes.js';
export { LineForwarder, DEFAULT_MAX_LINE_BYTES } from './line-forwarder.js';
export { jobEnvironment, rankEnvironment, newJobKey, PMI_FD_NUMBER, JOB_KEY_BYTES, type JobEnvironmentOptions } from './rank-environment.js';
export { parseRunArguments, MAX_RANKS, MAX_TIMEOUT_SECONDS, type RunRequest } from './run-arguments.js';
export { rankLimitProblem, MAX_PROCESS_RANKS } from './rank-limit.js';
export { spawnNodeRank } from './spawn-node-rank.js';
export { spawnWorkerRank } from './worker/spawn-worker-rank.js';
export { rankSpawnerFor } from './worker/rank-spawner.js';
export { createNodePmiServer } from './node-pmi-server.js';
export { realLauncherClock, type LauncherClock, type LauncherTimer } from './launcher-clock.js';
export type { RankProcess, RankExit, RankSpawnRequest, SpawnRank } from './rank-process.js';
export type { CreatePmiServer, LauncherPmiServer, LauncherPmiServerOptions } from './pmi-server-port.js';
