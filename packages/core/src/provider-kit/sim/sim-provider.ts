import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { requireJobKeyOption } from '../../config/job-key.js';
import type { IaLimits } from '../../dat/ia.js';
import { DAT_PROVIDER_API_VERSION, DAT_PROVIDER_BRAND, type DatProvider, type IaOptions, type ParameterSpec, type ProviderCapabilities } from '../../dat/provider.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { SimClock } from '../../sim/sim-clock.js';
import { SimKernel } from '../../sim/sim-kernel.js';
import type { SimulatedProvider } from '../../sim/simulated-provider.js';
import { constantTimeEqual } from '../bytes.js';
import { effectiveCapabilities, type IaBaseInit } from '../ia-base.js';
import type { SimFabric } from './sim-fabric.js';
import type { SimIa, SimIaPlace } from './sim-ia.js';
import type { SimParameters } from './sim-parameters.js';

/** How a simulated provider is made: its name, the kernel it runs on, and parameter overrides. */
export interface SimProviderOptions {
  /** Provider name (logs, `query().provider`). Default: the provider's own (`ib`, …). */
  readonly name?: string;
  /** The kernel to run on (e.g. the one `dapl run` drives); default: a kernel of this provider's own. */
  readonly kernel?: SimKernel;
  /** Parameters every IA of this provider starts from (an IA's own `options.parameters` override them). */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** A simulated provider (`isSimulatedProvider`): `dapl run` runs its jobs' ranks under `kernel`. */
export interface SimProvider extends DatProvider, SimulatedProvider {
  /** The kernel this provider's fabric runs on. */
  readonly kernel: SimKernel;
}

/** What makes one simulated provider: its identity, parameters, fabric and IA. */
export interface SimProviderDefinition<P extends SimParameters, F extends SimFabric<P>> {
  /** Default provider name. */
  readonly name: string;
  readonly description: string;
  readonly capabilities: ProviderCapabilities;
  readonly parameters: readonly ParameterSpec[];
  /** Parameters from what the consumer passed (defaults, range checks, cross-checks). */
  resolveParameters(raw: Readonly<Record<string, unknown>>): P;
  /** The fabric, built by the first IA opened. */
  createFabric(kernel: SimKernel, params: P): F;
  /** The limits of an IA under these parameters. */
  limits(params: P): IaLimits;
  /** The address of the IA at `node` (`ib:<lid>`, …). */
  address(node: number): string;
  /** Make the provider's IA from the kit's checked `init` and its place on the fabric. */
  openIa(init: IaBaseInit, place: SimIaPlace<F>): SimIa;
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
 * A simulated provider object: every IA opened from it is a node of one fabric on one kernel.
 * Parameters are checked per IA; the fabric's model parameters must agree across its IAs.
 */
export function createSimProvider<P extends SimParameters, F extends SimFabric<P>>(definition: SimProviderDefinition<P, F>, options: SimProviderOptions = {}): SimProvider {
  const kernel = options.kernel ?? new SimKernel();
  const defaultKey = randomBytes(32);
  let lastKey: Uint8Array = defaultKey;
  let fabric: F | undefined;
  const provider: SimProvider = {
    [DAT_PROVIDER_BRAND]: true,
    name: options.name ?? definition.name,
    apiVersion: DAT_PROVIDER_API_VERSION,
    description: definition.description,
    capabilities: definition.capabilities,
    parameters: definition.parameters,
    kernel,
    async openIa(iaOptions: IaOptions = {}, runtime?: Runtime) {
      const params = definition.resolveParameters({ ...options.parameters, ...iaOptions.parameters });
      if (fabric === undefined) {
        fabric = definition.createFabric(kernel, params);
        // Tests drive IAs outside any kernel.run: events must still happen as they await.
        kernel.enableFreeRunning();
      } else fabric.checkSameModel(params);
      let jobKey = iaOptions.jobKey === undefined ? defaultKey : requireJobKeyOption(iaOptions.jobKey);
      // Every rank of an in-process job brings its own copy of the key: IAs of one key share one
      // object, so that a connection request is matched by identity (see SimIa.sameJobAs).
      if (constantTimeEqual(jobKey, lastKey)) jobKey = lastKey;
      else lastKey = jobKey;
      const clock = rankClock(kernel, runtime);
      // A rank's IA is node `rank` when that is free: addresses then do not depend on which rank loaded first.
      const node = fabric.allocateNode(clock === undefined ? undefined : runtime?.rank);
      const logger = iaOptions.logger ?? pino({ level: 'silent' });
      return definition.openIa(
        {
          provider,
          name: iaOptions.name ?? `${provider.name}${node}`,
          address: definition.address(node),
          limits: definition.limits(params),
          capabilities: effectiveCapabilities(definition.capabilities.dto, iaOptions.capabilities),
          parameters: params as unknown as Record<string, unknown>,
          logger: logger.child({ component: `${provider.name}:Ia` }),
          defaultConnectTimeoutMs: params.connectTimeoutMs,
        },
        { fabric, node, clock: clock ?? kernel.clock(node), jobKey, rank: clock === undefined ? undefined : runtime?.rank },
      );
    },
  };
  return provider;
}
