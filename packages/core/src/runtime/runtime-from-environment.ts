import { hasPmiEnvironment } from './pmi/environment.js';
import { PmiRuntime, type PmiRuntimeOptions } from './pmi/pmi-runtime.js';
import { rankContext } from './rank-context.js';
import type { Runtime } from './runtime.js';
import { SingletonRuntime } from './singleton-runtime.js';
import { workerRank } from './worker-rank.js';

/**
 * The runtime this rank was started with (DESIGN §5): its rank context's when it runs in-process
 * with others (`rankContext`), else a PMI-1 client over its MessagePort when it is a worker-thread
 * rank (`workerRank`), else a PMI-1 client when a launcher set `PMI_FD` or `PMI_PORT`
 * (Hydra, `dapl run`), else a singleton job of size 1. A malformed PMI variable is a DatError
 * naming it, never a silent fallback to singleton.
 */
export async function runtimeFromEnvironment(env: NodeJS.ProcessEnv = process.env, options: PmiRuntimeOptions = {}): Promise<Runtime> {
  const context = rankContext.getStore();
  if (context !== undefined) return context.runtime;
  const thread = workerRank();
  if (thread !== undefined) return PmiRuntime.overStream(thread.openPmiStream(), { rank: thread.rank, size: thread.size }, options);
  if (hasPmiEnvironment(env)) return PmiRuntime.connect(env, options);
  return new SingletonRuntime(options);
}
