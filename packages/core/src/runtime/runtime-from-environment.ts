import { hasPmiEnvironment } from './pmi/environment.js';
import { PmiRuntime, type PmiRuntimeOptions } from './pmi/pmi-runtime.js';
import { Pmi2Runtime } from './pmi/pmi2-runtime.js';
import { pmiVersionFor } from './pmi/pmi-version.js';
import { rankContext } from './rank-context.js';
import type { Runtime } from './runtime.js';
import { SingletonRuntime } from './singleton-runtime.js';
import { workerRank } from './worker-rank.js';

/**
 * The runtime this rank was started with (DESIGN §5): its rank context's when it runs in-process
 * with others (`rankContext`), else a PMI-1 client over its MessagePort when it is a worker-thread
 * rank (`workerRank`), else a PMI client when a launcher set `PMI_FD` or `PMI_PORT` — PMI-2
 * when the launcher offers it (Slurm's `--mpi=pmi2`, `PMI_VERSION=2`, or `DAPL_PMI_VERSION=2`), else
 * PMI-1 (Hydra, `dapl run`) — else a singleton job of size 1. A malformed PMI variable is a DatError
 * naming it, never a silent fallback to singleton.
 */
export async function runtimeFromEnvironment(env: NodeJS.ProcessEnv = process.env, options: PmiRuntimeOptions = {}): Promise<Runtime> {
  const context = rankContext.getStore();
  if (context !== undefined) return context.runtime;
  const thread = workerRank();
  if (thread !== undefined) return PmiRuntime.overStream(thread.openPmiStream(), { rank: thread.rank, size: thread.size }, options);
  if (hasPmiEnvironment(env)) return pmiVersionFor(env) === 2 ? Pmi2Runtime.connect(env, options) : PmiRuntime.connect(env, options);
  return new SingletonRuntime(options);
}
