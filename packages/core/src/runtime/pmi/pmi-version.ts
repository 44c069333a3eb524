/**
 * Which PMI wire a rank speaks: PMI-2 when its launcher offers it (Slurm's `srun --mpi=pmi2` sets
 * `SLURM_MPI_TYPE=pmi2` beside `PMI_FD`; a launcher may say `PMI_VERSION=2`), else PMI-1, which Hydra,
 * `dapl run` and Slurm's pmi2 plugin all serve. `DAPL_PMI_VERSION=1|2` forces one (`auto`: choose).
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { PMI_VERSION_ENV } from '../../config/core-parameters.js';

export { PMI_VERSION_ENV };

/** A PMI wire version. */
export type PmiVersion = 1 | 2;

/**
 * The PMI version to speak under `env`: `DAPL_PMI_VERSION` if it forces one, else 2 when the launcher
 * offers PMI-2 (`PMI_VERSION=2`, or Slurm's `SLURM_MPI_TYPE=pmi2` beside `PMI_FD`), else 1.
 * @throws DatError INVALID_PARAMETER when `DAPL_PMI_VERSION` is not 1, 2 or auto.
 */
export function pmiVersionFor(env: NodeJS.ProcessEnv): PmiVersion {
  const forced = env[PMI_VERSION_ENV];
  if (forced !== undefined && forced !== '' && forced !== 'auto') {
    if (forced === '1' || forced === '2') return Number(forced) as PmiVersion;
    throw new DatError(DatStatus.INVALID_PARAMETER, `${PMI_VERSION_ENV}=${JSON.stringify(forced)} is not 1, 2 or auto`, { argument: PMI_VERSION_ENV });
  }
  if (env.PMI_VERSION === '2') return 2;
  if (env.PMI_FD !== undefined && env.SLURM_MPI_TYPE === 'pmi2') return 2;
  return 1;
}
