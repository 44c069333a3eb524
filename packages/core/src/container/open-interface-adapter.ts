import type { Logger } from 'pino';
import type { DatProvider } from '../dat/provider.js';
import type { InterfaceAdapter } from '../dat/ia.js';
import type { Runtime } from '../runtime/runtime.js';
import type { DaplConfig } from '../config/dapl-config.js';
import { launcherAddress, localProcesses, spansHosts } from '../runtime/local-processes.js';

/**
 * Open the provider's IA the way configuration says: its section's effective parameters, the
 * job key from `DAPL_JOB_KEY`, the registry key as the IA name (as `dat_ia_open` takes the
 * dat.conf name), a logger bound to the provider and rank, and how many of the job's processes
 * share this host, whether the job spans hosts and where its launcher is. A setting in the provider's section that it does not declare (a misspelt
 * `DAPL_TCP_POLLUS`, say) is refused, naming where it came from, as `openIa` refuses an unknown
 * parameter and MPI an unknown `mpi.*` setting: a typo silently ignored would look like a setting
 * that does nothing.
 */
export async function openInterfaceAdapter(provider: DatProvider, config: DaplConfig, runtime: Runtime, root: Logger, jobKey = config.jobKey): Promise<InterfaceAdapter> {
  const { values } = config.resolveDeclaredSection(provider.name, provider.parameters, `provider ${provider.name}`);
  return provider.openIa(
    {
      name: config.providerKey,
      parameters: values,
      jobKey,
      logger: root.child({ provider: provider.name, rank: runtime.rank }),
      localProcesses: localProcesses(runtime, config.env),
      spansHosts: spansHosts(runtime, config.env),
      launcherAddress: launcherAddress(config.env),
    },
    runtime,
  );
}
