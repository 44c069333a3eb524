import type { Logger } from 'pino';
import type { DatProvider } from '../dat/provider.js';
import type { InterfaceAdapter } from '../dat/ia.js';
import type { Runtime } from '../runtime/runtime.js';
import type { DaplConfig } from '../config/dapl-config.js';
import { localProcesses } from '../runtime/local-processes.js';

/**
 * Open the provider's IA the way configuration says: its section's effective parameters, the
 * job key from `DAPL_JOB_KEY`, the registry key as the IA name (as `dat_ia_open` takes the
 * dat.conf name), a logger bound to the provider and rank, and how many of the job's processes
 * share this host.
 */
export function openInterfaceAdapter(provider: DatProvider, config: DaplConfig, runtime: Runtime, root: Logger, jobKey = config.jobKey): Promise<InterfaceAdapter> {
  const { values } = config.resolveSection(provider.name, provider.parameters);
  return provider.openIa(
    {
      name: config.providerKey,
      parameters: values,
      jobKey,
      logger: root.child({ provider: provider.name, rank: runtime.rank }),
      localProcesses: localProcesses(runtime, config.env),
    },
    runtime,
  );
}
