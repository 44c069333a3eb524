import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { DaplConfig as DaplConfigClass } from '../config/dapl-config.js';
import type { ProviderRegistry as ProviderRegistryClass } from '../registry/provider-registry.js';
import { createProviderRegistry } from '../registry/create-provider-registry.js';
import { createRootLogger } from '../logging/root-logger.js';
import { createLoggerFactory } from '../logging/logger-factory.js';
import { SingletonRuntime } from '../runtime/singleton-runtime.js';
import { OpenedInterfaceAdapters } from './opened-interface-adapters.js';
import { openInterfaceAdapter } from './open-interface-adapter.js';
import { DaplConfig, DatProvider, InterfaceAdapter, LoggerFactory, ProviderRegistry, RootLogger, Runtime } from './tokens.js';

/** What core's container module binds: the configuration, and optionally the runtime, registry and root logger to use instead of the defaults. */
export interface CoreModuleInputs {
  readonly config: DaplConfigClass;
  /** Default: a `SingletonRuntime` (job of size 1). */
  readonly runtime?: Runtime;
  /** Default: the registry the configuration describes. */
  readonly registry?: ProviderRegistryClass;
  /** Default: a pino logger on stderr at `config.logLevel`. */
  readonly rootLogger?: Logger;
  /** Default: `config.jobKey` (from `DAPL_JOB_KEY`). */
  readonly jobKey?: Uint8Array;
}

/** Core's bindings, all singletons. The provider and the IA are async: resolve them with `getAsync`. */
export function createCoreModule(inputs: CoreModuleInputs): ContainerModule {
  const { config } = inputs;
  return new ContainerModule(({ bind }) => {
    bind(DaplConfig).toConstantValue(config);
    bind<RootLogger>(RootLogger)
      .toDynamicValue(() => inputs.rootLogger ?? createRootLogger({ level: config.logLevel }))
      .inSingletonScope();
    bind<LoggerFactory>(LoggerFactory)
      .toDynamicValue((ctx) => createLoggerFactory(ctx.get<RootLogger>(RootLogger)))
      .inSingletonScope();
    bind(ProviderRegistry)
      .toDynamicValue(() => inputs.registry ?? createProviderRegistry(config))
      .inSingletonScope();
    bind<Runtime>(Runtime)
      .toDynamicValue(() => inputs.runtime ?? new SingletonRuntime())
      .inSingletonScope();
    bind<DatProvider>(DatProvider)
      .toDynamicValue(async (ctx) => (await ctx.getAsync(ProviderRegistry)).load(config.providerKey))
      .inSingletonScope();
    bind(OpenedInterfaceAdapters)
      .toDynamicValue(() => new OpenedInterfaceAdapters())
      .inSingletonScope();
    bind<InterfaceAdapter>(InterfaceAdapter)
      .toDynamicValue(async (ctx) => {
        const provider = await ctx.getAsync<DatProvider>(DatProvider);
        const ia = await openInterfaceAdapter(provider, config, ctx.get<Runtime>(Runtime), ctx.get<RootLogger>(RootLogger), inputs.jobKey);
        ctx.get(OpenedInterfaceAdapters).add(ia);
        return ia;
      })
      .inSingletonScope();
  });
}
