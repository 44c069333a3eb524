import type { RankContext } from '../../runtime/rank-context.js';

/**
 * What in-process jobs share process-wide, on `globalThis` under a `Symbol.for` key: loader hooks
 * and process patches must be installed once even when two copies of core run jobs in one process.
 */
export interface InProcessState {
  hooksRegistered: boolean;
  interceptorsInstalled: boolean;
  /** An in-process job is running: it owns `process.argv`. */
  jobRunning: boolean;
  /** The rank contexts of each running job, by job id (the `dapl-job` of its modules' URLs). */
  readonly jobs: Map<string, readonly RankContext[]>;
}

const STATE_KEY = Symbol.for('@dapl/core/in-process-state');

type WithState = typeof globalThis & { [STATE_KEY]?: InProcessState };

export const inProcessState: InProcessState = ((globalThis as WithState)[STATE_KEY] ??= {
  hooksRegistered: false,
  interceptorsInstalled: false,
  jobRunning: false,
  jobs: new Map(),
});
