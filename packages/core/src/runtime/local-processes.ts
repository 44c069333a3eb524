import type { Environment } from '../config/dapl-config.js';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { describeValue } from '../util/describe-value.js';
import { rankContext } from './rank-context.js';
import type { Runtime } from './runtime.js';

/**
 * Ranks of the job on this host, as MPICH's Hydra (and `dapl run`) tell each rank: the number a
 * provider that spends CPU while waiting (busy polling) needs, since polling pays only where every
 * process has a CPU of its own (Open MPI's rule: aggressive progress unless oversubscribed).
 */
export const LOCAL_RANKS_ENV = 'MPI_LOCALNRANKS';
/** This rank's index among the job's ranks on this host (Hydra's `MPI_LOCALRANKID`). */
export const LOCAL_RANK_ENV = 'MPI_LOCALRANKID';

/**
 * Processes of this rank's job that share this host's CPUs: 1 when the ranks run in-process (one
 * process, one thread, whatever the job's size), else the ranks the process mapping puts on this
 * host (`runtime.localRanks`, PMI-2), else the launcher's `MPI_LOCALNRANKS` when it is a whole number
 * from 1 to the job's size, else the job's size (a launcher that does not say may
 * have put every rank here: assume the most).
 */
export function localProcesses(runtime: Runtime, env: Environment): number {
  if (rankContext.getStore() !== undefined) return 1;
  const local = runtime.localRanks?.length;
  if (local !== undefined && local >= 1 && local <= runtime.size) return local;
  const given = env[LOCAL_RANKS_ENV];
  if (given !== undefined && /^[1-9][0-9]{0,6}$/.test(given)) {
    const n = Number(given);
    if (n <= runtime.size) return n;
  }
  return runtime.size;
}

/** `openIa`'s `options.localProcesses`, checked for a provider: a whole number ≥ 1, or undefined (unknown). */
export function requireLocalProcessesOption(n: unknown): number | undefined {
  if (n === undefined) return undefined;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `options.localProcesses must be a whole number of processes, at least 1, got ${describeValue(n)}`, { argument: 'options.localProcesses' });
  }
  return n;
}

/**
 * Whether the job's ranks run on more than one host: the process mapping puts fewer ranks here than
 * the job has, or the launcher's `MPI_LOCALNRANKS` (Hydra, `dapl run --hosts`) does, or Slurm says
 * the step has several nodes. In-process ranks never do.
 */
export function spansHosts(runtime: Runtime, env: Environment): boolean {
  if (rankContext.getStore() !== undefined || runtime.size === 1) return false;
  if (runtime.localRanks !== undefined) return runtime.localRanks.length < runtime.size;
  if (localProcesses(runtime, env) < runtime.size) return true;
  const nodes = env.SLURM_STEP_NUM_NODES ?? env.SLURM_NNODES;
  return nodes !== undefined && /^\d{1,7}$/.test(nodes) && Number(nodes) > 1;
}

/** An address of the launcher's host, when the environment names one: `PMI_PORT`'s host, else Slurm's `SLURM_LAUNCH_NODE_IPADDR`. */
export function launcherAddress(env: Environment): string | undefined {
  const port = env.PMI_PORT;
  if (port !== undefined) {
    const host = port.slice(0, port.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
    if (host !== '') return host;
  }
  const slurm = env.SLURM_LAUNCH_NODE_IPADDR;
  return slurm !== undefined && slurm !== '' ? slurm : undefined;
}
