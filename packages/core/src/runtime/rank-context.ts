import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { DaplConfig, Environment } from '../config/dapl-config.js';
import type { Runtime } from './runtime.js';

/**
 * Who the code running now is, when several ranks of a job share one process (in-process jobs and
 * the simulator, DESIGN §5–6). `runtimeFromEnvironment()` and `startJob()` read it first, so a
 * program written for `dapl run` with processes finds its rank unchanged.
 */
export interface RankContext {
  readonly rank: number;
  readonly size: number;
  readonly runtime: Runtime;
  /** The job's environment (job key, provider, config file) in place of `process.env`, which the ranks share. */
  readonly env?: Environment;
  /** What `startJob()` uses when it is given none. */
  readonly config?: DaplConfig;
  /** The rank's root logger (its lines go through the rank's stderr, tagged like its output). */
  readonly logger?: Logger;
}

const RANK_CONTEXT_KEY = Symbol.for('@dapl/core/rank-context');

type WithRankContext = typeof globalThis & { [RANK_CONTEXT_KEY]?: AsyncLocalStorage<RankContext> };

/**
 * The rank of the current async task. One storage per process, kept on `globalThis` under a
 * `Symbol.for` key, so that two copies of core (a program's installed one and the launcher's) agree.
 */
export const rankContext: AsyncLocalStorage<RankContext> = ((globalThis as WithRankContext)[RANK_CONTEXT_KEY] ??= new AsyncLocalStorage<RankContext>());
