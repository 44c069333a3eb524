/** In-process jobs (DESIGN §5–6): N ranks of one program as async tasks of this process, each with its own module instances. */
export { runInProcess, type RunInProcessOptions, type InterruptSource } from './run-in-process.js';
export {
  InProcessJob,
  startEveryRank,
  type InProcessJobSpec,
  type InProcessJobCollaborators,
  type RankMain,
  type RunRanks,
  type ImportProgram,
} from './in-process-job.js';
export { describeInProcessFailure, inProcessExitCode, type InProcessOutcome, type InProcessFailure } from './in-process-outcome.js';
export { InProcessRankRuntime } from './rank-runtime.js';
export { PRIVATISATION_HOOKS_SOURCE, registerPrivatisationHooks, JOB_PARAMETER, RANK_PARAMETER } from './privatisation-hooks.js';
export { rankModuleUrl, AbandonedRankError } from './rank-modules.js';
export { kernelDriver, simReportLine, LOADING_THE_PROGRAM, type KernelDriver } from './kernel-driver.js';
export { SIM_REPORT_VARIABLE } from './run-in-process.js';
