// How a benchmark script runs: as a rank of a job when it is one (launched by `dapl run` or
// mpiexec, a rank task in process, or a worker-thread rank of shm), else it launches itself as a job with `dapl run`, passes its
// own arguments on, and exits with the job's status.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hasPmiEnvironment, rankContext, workerRank } from '@dapl/core';

/** Run `benchmark` if this process (or thread) is a rank; else `dapl run -n ranks --provider provider` this script (`scriptUrl`). */
export async function runAsJob(scriptUrl, ranks, provider, benchmark) {
  if (rankContext.getStore() !== undefined || workerRank() !== undefined || hasPmiEnvironment(process.env)) return benchmark();
  const dapl = fileURLToPath(new URL('../../packages/core/dist/cli/main.js', import.meta.url));
  const child = spawn(process.execPath, [dapl, 'run', '-n', String(ranks), '--provider', provider, fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
}
