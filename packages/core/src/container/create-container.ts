import { Container, type ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { DaplConfig } from '../config/dapl-config.js';
import type { ProviderRegistry } from '../registry/provider-registry.js';
import type { Runtime } from '../runtime/runtime.js';
import { createCoreModule } from './core-module.js';
import { OpenedInterfaceAdapters } from './opened-interface-adapters.js';

/** What `createContainer` may be given besides the configuration: the runtime, upper libraries' modules, the registry and the root logger. */
export interface CreateContainerOptions {
  /** Default: a `SingletonRuntime`. The launcher and the simulator pass theirs. */
  readonly runtime?: Runtime;
  /** Upper libraries' modules, loaded after core's. */
  readonly modules?: readonly ContainerModule[];
  readonly registry?: ProviderRegistry;
  /** Default: a pino logger on stderr at the configured level. */
  readonly rootLogger?: Logger;
  /** The job secret the IA authenticates with. Default: `DAPL_JOB_KEY` (see `resolveJobKey` for jobs without it). */
  readonly jobKey?: Uint8Array;
}

/**
 * The one composition root (DESIGN §1): core's bindings, then the upper libraries' modules.
 * Nothing is opened yet; `await container.getAsync(InterfaceAdapter)` loads the configured
 * provider and opens its IA.
 */
export async function createContainer(config: DaplConfig, options: CreateContainerOptions = {}): Promise<Container> {
  const container = new Container({ defaultScope: 'Singleton' });
  await container.loadAsync(
    createCoreModule({ config, runtime: options.runtime, registry: options.registry, rootLogger: options.rootLogger, jobKey: options.jobKey }),
    ...(options.modules ?? []),
  );
  return container;
}

/** Close the IA the container opened, if it opened one. Idempotent. */
export async function closeContainer(container: Container): Promise<void> {
  if (!container.isBound(OpenedInterfaceAdapters)) return;
  await container.get(OpenedInterfaceAdapters).closeAll();
}
