import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { pino } from 'pino';
import { DAT_PROVIDER_API_VERSION, DAT_PROVIDER_BRAND, DatError, DatStatus, iaJobKey, requireLocalProcessesOption, workerRank, type DatProvider, type IaOptions, type Runtime } from '@dapl/core';
import { effectiveCapabilities } from '@dapl/core/provider-kit';
import { SHM_CAPABILITIES, shmLimits } from './attr.js';
import { newAddress } from './control.js';
import { ShmIa } from './ia.js';
import { fragmentLimit, peerRegionBytes, resolveShmParameters, ringCapacity, SHM_PARAMETERS, spinPlan } from './params.js';
import { SpinGovernor, threadSpinGovernor } from './spin-governor.js';
import { FRAME_ALIGN } from './ring.js';

/** Used when neither the options nor DAPL_JOB_KEY name a key: IAs of this process can reach each other. */
const processJobKey = randomBytes(32);


/**
 * Ranks of a job that are not threads of this process cannot share memory: a job of several ranks
 * must have been started by `dapl run --provider shm` (worker threads), not as processes.
 */
function requireSharedProcess(runtime: Runtime | undefined): void {
  if (runtime === undefined || runtime.size === 1 || workerRank() !== undefined) return;
  throw new DatError(
    DatStatus.INVALID_STATE,
    `the shm provider needs every rank of the job as a worker thread of one process, but rank ${runtime.rank} of ${runtime.size} was started on its own ` +
      '(by mpiexec/Hydra, srun, or dapl run with another launch mode); start the job with `dapl run -n N --provider shm program.mjs`, or pick the tcp provider',
    { argument: 'runtime' },
  );
}

/** The shm provider: DAT between worker-thread ranks of one process, through shared memory. */
export const shmProvider: DatProvider = {
  [DAT_PROVIDER_BRAND]: true,
  name: 'shm',
  apiVersion: DAT_PROVIDER_API_VERSION,
  description: 'DAT over shared memory between worker-thread ranks of one process: SPSC rings per connection, Atomics doorbells',
  capabilities: SHM_CAPABILITIES,
  parameters: SHM_PARAMETERS,
  async openIa(options: IaOptions = {}, runtime?: Runtime) {
    const params = resolveShmParameters(options.parameters);
    requireSharedProcess(runtime);
    const local = requireLocalProcessesOption(options.localProcesses);
    const logger = options.logger ?? pino({ level: 'silent' });
    const plan = spinPlan(params, local, availableParallelism(), params.spin === 'auto' && SpinGovernor.available(), () => loadavg()[0]);
    const spinUs = plan.spinUs;
    logger.debug({ spin: params.spin, ...plan, localProcesses: local }, spinUs > 0 ? 'polling the rings after activity' : 'sleeping at once when idle');
    const address = newAddress();
    return new ShmIa(
      {
        provider: shmProvider,
        name: options.name ?? 'shm0',
        address,
        limits: shmLimits(params),
        capabilities: effectiveCapabilities(SHM_CAPABILITIES.dto, options.capabilities),
        parameters: params as unknown as Record<string, unknown>,
        // A consumer that spins on dequeue polls the rings itself, as the engine would for spinUs.
        dequeuePollUs: spinUs,
        logger: logger.child({ component: 'provider-shm:Ia' }),
        defaultConnectTimeoutMs: params.connectTimeoutMs,
      },
      {
        jobKey: iaJobKey(options, processJobKey),
        spinUs,
        governor: plan.governed ? threadSpinGovernor() : undefined,
        ringCapacity: ringCapacity(params),
        fragmentBytes: fragmentLimit(params, FRAME_ALIGN),
        peerRegionBytes: peerRegionBytes(params),
      },
    );
  },
};
