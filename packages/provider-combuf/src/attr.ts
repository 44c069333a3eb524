import type { DtoCapability, IaLimits, ProviderCapabilities } from '@dapl/core';
import type { CombufParameters } from './params.js';

export const COMBUF_DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

/** `hw-collectives`: the hardware barrier and broadcast (Tatebe et al. §3.1), hw-collectives.ts. */
export const COMBUF_CAPABILITIES: ProviderCapabilities = { dto: COMBUF_DTO_CAPABILITIES, extensions: ['hw-collectives'], inProcess: true };

/** Limits as data. */
export function combufLimits(params: CombufParameters): IaLimits {
  return {
    maxMessageSize: params.maxMessageSize,
    maxRdmaSize: params.maxMessageSize,
    maxInline: 0,
    maxIov: 16,
    maxRecvDtos: 65_536,
    maxRequestDtos: 65_536,
    maxEvdQueueDepth: 1 << 20,
    maxPrivateData: 256,
    connQualRange: [1, 65_535],
  };
}
