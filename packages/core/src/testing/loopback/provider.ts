import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { DAT_PROVIDER_API_VERSION, DAT_PROVIDER_BRAND, type DatProvider, type IaOptions, type ParameterSpec } from '../../dat/provider.js';
import type { IaLimits } from '../../dat/ia.js';
import { effectiveCapabilities } from '../../provider-kit/index.js';
import { LoopbackFabric } from './fabric.js';
import { LoopbackIa } from './ia.js';

const LIMITS: IaLimits = {
  maxMessageSize: 64 * 1024 * 1024,
  maxRdmaSize: 64 * 1024 * 1024,
  maxInline: 0,
  maxIov: 16,
  maxRecvDtos: 65_536,
  maxRequestDtos: 65_536,
  maxEvdQueueDepth: 1 << 20,
  maxPrivateData: 256,
  connQualRange: [1, 65_535],
};

const PARAMETERS: readonly ParameterSpec[] = [];

/** The loopback provider, which can also open two IAs ready to connect to each other. */
export interface LoopbackProvider extends DatProvider {
  /** Two IAs of this provider, ready to connect to each other. */
  openPair(options?: IaOptions): Promise<[LoopbackIa, LoopbackIa]>;
}

/**
 * An in-memory provider: every IA opened from the returned object lives in this process and
 * reaches the others by address. Full DAT semantics (RDMA checked through the RMR table,
 * receive stalls, flush on loss); no timing model. For upper-library unit tests, and as the
 * smallest complete example of a provider built on `@dapl/core/provider-kit`.
 */
export function createLoopbackProvider(options: { name?: string } = {}): LoopbackProvider {
  const fabric = new LoopbackFabric();
  const defaultKey = randomBytes(32);
  const provider: LoopbackProvider = {
    [DAT_PROVIDER_BRAND]: true,
    name: options.name ?? 'loopback',
    apiVersion: DAT_PROVIDER_API_VERSION,
    description: 'in-memory loopback provider (all IAs in one process); for tests',
    capabilities: { dto: ['rdma-write', 'rdma-read', 'rdma-write-immediate'], extensions: [], inProcess: true },
    parameters: PARAMETERS,
    async openIa(iaOptions: IaOptions = {}) {
      const address = fabric.allocateAddress();
      const logger = iaOptions.logger ?? pino({ level: 'silent' });
      return new LoopbackIa(
        {
          provider,
          name: iaOptions.name ?? `${provider.name}${address.slice(5)}`,
          address,
          limits: LIMITS,
          capabilities: effectiveCapabilities(provider.capabilities.dto, iaOptions.capabilities),
          parameters: {},
          logger: logger.child({ component: `${provider.name}:Ia` }),
          defaultConnectTimeoutMs: 5_000,
        },
        fabric,
        iaOptions.jobKey ?? defaultKey,
      );
    },
    async openPair(iaOptions?: IaOptions) {
      return [(await provider.openIa(iaOptions)) as LoopbackIa, (await provider.openIa(iaOptions)) as LoopbackIa];
    },
  };
  return provider;
}
