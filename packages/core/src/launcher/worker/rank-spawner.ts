import type { ProviderCapabilities } from '../../dat/provider.js';
import type { SpawnRank } from '../rank-process.js';
import { spawnNodeRank } from '../spawn-node-rank.js';
import { spawnWorkerRank } from './spawn-worker-rank.js';

/** How `dapl run` starts a provider's ranks, from what the provider declares: threads or processes. */
export function rankSpawnerFor(capabilities: ProviderCapabilities): SpawnRank {
  return capabilities.workerThreads === true ? spawnWorkerRank : spawnNodeRank;
}
