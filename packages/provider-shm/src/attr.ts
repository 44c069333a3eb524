import type { DtoCapability, IaLimits, ProviderCapabilities } from '@dapl/core';
import type { ShmParameters } from './params.js';

export const SHM_DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

/** Ranks are worker threads of one process: they share memory (DESIGN §4). */
export const SHM_CAPABILITIES: ProviderCapabilities = {
  dto: SHM_DTO_CAPABILITIES,
  /** Offered by an IA whose `peerMemoryBytes` is above 0 (the default). */
  extensions: ['peer-memory'],
  inProcess: false,
  workerThreads: true,
};

/** Limits as data (libfabric's `*_attr.c`); only the message size is a parameter. */
export function shmLimits(params: ShmParameters): IaLimits {
  return {
    maxMessageSize: params.maxMessageSize,
    maxRdmaSize: params.maxMessageSize,
    maxInline: 0,
    maxIov: 64,
    maxRecvDtos: 1 << 20,
    maxRequestDtos: 1 << 20,
    maxEvdQueueDepth: 1 << 22,
    maxPrivateData: 1024,
    connQualRange: [1, 65_535],
  };
}
