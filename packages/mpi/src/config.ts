import { MPI_PARAMETERS } from './api/mpi-parameters.js';
import { checkDevice, devicesFor } from './device/requirements.js';

/**
 * The `mpi` section of the configuration as core's `loadLibrarySections` reads it (`@dapl/mpi/config`):
 * `dapl run` refuses an unknown or invalid `mpi.*` setting, or a device the provider cannot run,
 * before any rank starts, and `dapl info` lists the section and which devices each provider can run.
 * A module of its own, so that reading it loads none of the library.
 */
export const CONFIG_SECTION = { name: 'mpi', parameters: MPI_PARAMETERS, check: checkDevice, supports: devicesFor } as const;
