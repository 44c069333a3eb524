import { pathToFileURL } from 'node:url';
import { rankContext, type RankContext } from '../../runtime/rank-context.js';
import { inProcessState } from './in-process-state.js';
import { ENTER_RANK_MODULE_KEY, JOB_PARAMETER, RANK_PARAMETER } from './privatisation-hooks.js';

/** The URL rank `rank` of job `jobId` imports `program` by: its own instance of the program's modules. */
export function rankModuleUrl(program: string, jobId: string, rank: number): string {
  const url = pathToFileURL(program);
  url.searchParams.set(JOB_PARAMETER, jobId);
  url.searchParams.set(RANK_PARAMETER, String(rank));
  return url.href;
}

/** Thrown by the first statement of a rank's module when its job has already ended: the rank is abandoned, its code must not start. */
export class AbandonedRankError extends Error {
  override readonly name = 'AbandonedRankError';
}

/**
 * Called by the first statement of every privatised module (see `PRIVATISATION_HOOKS_SOURCE`):
 * makes the rest of the module's top-level code, and what it starts, run in its rank's context.
 * A module of a job that has ended throws instead: a rank still loading when its job ended would
 * otherwise start running after it (and see the launcher's `process.argv`).
 */
export function enterRankModule(moduleUrl: string): void {
  const url = URL.canParse(moduleUrl) ? new URL(moduleUrl) : undefined;
  const jobId = url?.searchParams.get(JOB_PARAMETER);
  if (url === undefined || jobId === null || jobId === undefined) return;
  const contexts = inProcessState.jobs.get(jobId);
  if (contexts === undefined) throw new AbandonedRankError(`in-process job ${jobId} has ended: ${url.pathname} is not run`);
  const context: RankContext | undefined = contexts[Number(url.searchParams.get(RANK_PARAMETER))];
  // enterWith, not run: the module's code cannot be wrapped; this holds for the rest of it.
  if (context !== undefined && rankContext.getStore() !== context) rankContext.enterWith(context);
}

type WithEnter = typeof globalThis & { [key: symbol]: unknown };

/** Install `enterRankModule` where the prologue looks for it (once; a second copy of core keeps the first's). */
export function installEnterRankModule(): void {
  const key = Symbol.for(ENTER_RANK_MODULE_KEY);
  (globalThis as WithEnter)[key] ??= enterRankModule;
}
