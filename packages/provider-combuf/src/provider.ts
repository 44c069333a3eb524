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
import { COMBUF_CAPABILITIES, combufLimits } from './attr.js';
import { CombufFabric } from './fabric.js';
import { CombufIa } from './ia.js';
import { COMBUF_PARAMETERS, resolveCombufParameters } from './params.js';

export interface CombufProviderOptions {
  /** Provider name (logs, `query().provider`). Default `combuf`. */
  readonly name?: string;
  /** The kernel to run on (e.g. the one `dapl run` drives); default: a kernel of this provider's own. */
  readonly kernel?: SimKernel;
  /** Parameters every IA of this provider starts from (an IA's own `options.parameters` override them). */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export interface CombufProvider extends DatProvider, SimulatedProvider {
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
 * A simulated SR8000: every IA opened from the returned object is a node of one machine (kernel,
 * crossbar network model). Bytes really move; time is modelled (model.ts).
 */
export function createCombufProvider(options: CombufProviderOptions = {}): CombufProvider {
  const kernel = options.kernel ?? new SimKernel();
  const defaultKey = randomBytes(32);
  let fabric: CombufFabric | undefined;
  const provider: CombufProvider = {
    [DAT_PROVIDER_BRAND]: true,
    name: options.name ?? 'combuf',
    apiVersion: DAT_PROVIDER_API_VERSION,
    description: 'simulated Hitachi SR8000 combuf remote DMA through TCWs on a 2-D crossbar under the virtual-time kernel',
    capabilities: COMBUF_CAPABILITIES,
    parameters: COMBUF_PARAMETERS,
    kernel,
    async openIa(iaOptions: IaOptions = {}, runtime?: Runtime) {
      const params = resolveCombufParameters({ ...options.parameters, ...iaOptions.parameters });
      if (fabric === undefined) fabric = new CombufFabric(kernel, params);
      else fabric.checkSameModel(params);
      const jobKey = jobKeyFrom(iaOptions, defaultKey);
      const clock = rankClock(kernel, runtime);
      // A rank's IA is node `rank` when that is free: addresses then do not depend on which rank loaded first.
      const node = fabric.allocateNode(clock === undefined ? undefined : runtime?.rank);
      const address = `combuf:${node}`;
      const logger = iaOptions.logger ?? pino({ level: 'silent' });
      return new CombufIa(
        {
          provider,
          name: iaOptions.name ?? `${provider.name}${node}`,
          address,
          limits: combufLimits(params),
          capabilities: effectiveCapabilities(COMBUF_CAPABILITIES.dto, iaOptions.capabilities),
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

/** The default combuf provider (one machine on its own kernel). */
export const combufProvider: CombufProvider = createCombufProvider();
