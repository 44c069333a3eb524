import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import {
  DAT_PROVIDER_API_VERSION,
  DAT_PROVIDER_BRAND,
  DatError,
  DatStatus,
  MIN_JOB_KEY_BYTES,
  SimKernel,
  type DatProvider,
  type IaOptions,
  type Runtime,
  type SimClock,
  type SimulatedProvider,
} from '@dapl/core';
import { effectiveCapabilities } from '@dapl/core/provider-kit';
import { LAPI_CAPABILITIES, lapiLimits } from './attr.js';
import { LapiFabric } from './fabric.js';
import { LapiIa } from './ia.js';
import { LAPI_PARAMETERS, resolveLapiParameters } from './params.js';

export interface LapiProviderOptions {
  /** Provider name (logs, `query().provider`). Default `lapi`. */
  readonly name?: string;
  /** The kernel to run on (e.g. the one `dapl run` drives); default: a kernel of this provider's own. */
  readonly kernel?: SimKernel;
  /** Parameters every IA of this provider starts from (an IA's own `options.parameters` override them). */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export interface LapiProvider extends DatProvider, SimulatedProvider {
  /** The kernel this provider's fabric runs on. */
  readonly kernel: SimKernel;
}

function jobKeyFrom(options: IaOptions, fallback: Uint8Array): Uint8Array {
  if (options.jobKey === undefined) return fallback;
  if (!(options.jobKey instanceof Uint8Array) || options.jobKey.length < MIN_JOB_KEY_BYTES) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `options.jobKey must be a Uint8Array of at least ${MIN_JOB_KEY_BYTES} bytes`, { argument: 'options.jobKey' });
  }
  return options.jobKey;
}

/** The runtime's clock when it is a clock of `kernel` (a rank of its run), else undefined. */
function rankClock(kernel: SimKernel, runtime: Runtime | undefined): SimClock | undefined {
  if (runtime === undefined || !Number.isSafeInteger(runtime.rank) || runtime.rank < 0) return undefined;
  try {
    const clock = kernel.clock(runtime.rank);
    return clock === runtime.clock ? clock : undefined;
  } catch {
    return undefined; // a rank outside the kernel's run
  }
}

/**
 * A simulated IBM SP with LAPI: every IA opened from the returned object is a node (task) of one
 * switch (kernel, network model, HAL paths). Bytes really move; time is modelled (model.ts).
 */
export function createLapiProvider(options: LapiProviderOptions = {}): LapiProvider {
  const kernel = options.kernel ?? new SimKernel();
  const defaultKey = randomBytes(32);
  let fabric: LapiFabric | undefined;
  const provider: LapiProvider = {
    [DAT_PROVIDER_BRAND]: true,
    name: options.name ?? 'lapi',
    apiVersion: DAT_PROVIDER_API_VERSION,
    description: 'simulated IBM RS/6000 SP switch with LAPI (Amsend/Put/Get, header and completion handlers) under the virtual-time kernel',
    capabilities: LAPI_CAPABILITIES,
    parameters: LAPI_PARAMETERS,
    kernel,
    async openIa(iaOptions: IaOptions = {}, runtime?: Runtime) {
      const params = resolveLapiParameters({ ...options.parameters, ...iaOptions.parameters });
      if (fabric === undefined) fabric = new LapiFabric(kernel, params);
      else fabric.checkSameModel(params);
      const jobKey = jobKeyFrom(iaOptions, defaultKey);
      const clock = rankClock(kernel, runtime);
      // A rank's IA is node `rank` when that is free: addresses then do not depend on which rank loaded first.
      const node = fabric.allocateNode(clock === undefined ? undefined : runtime?.rank);
      const address = `lapi:${node}`;
      const logger = iaOptions.logger ?? pino({ level: 'silent' });
      return new LapiIa(
        {
          provider,
          name: iaOptions.name ?? `${provider.name}${node}`,
          address,
          limits: lapiLimits(params),
          capabilities: effectiveCapabilities(LAPI_CAPABILITIES.dto, iaOptions.capabilities),
          parameters: params as unknown as Record<string, unknown>,
          logger: logger.child({ component: `${provider.name}:Ia` }),
          defaultConnectTimeoutMs: params.connectTimeoutMs,
        },
        fabric,
        node,
        clock ?? kernel.clock(node),
        jobKey,
        clock === undefined ? undefined : runtime?.rank,
      );
    },
  };
  return provider;
}

/** The default lapi provider (one fabric on its own kernel). */
export const lapiProvider: LapiProvider = createLapiProvider();
