import type { DtoCapability, IaLimits, ProviderCapabilities } from '@dapl/core';
import type { LapiParameters } from './params.js';

export const LAPI_DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

export const LAPI_CAPABILITIES: ProviderCapabilities = { dto: LAPI_DTO_CAPABILITIES, extensions: ['active-messages'], inProcess: true };

/** Limits as data. */
export function lapiLimits(params: LapiParameters): IaLimits {
  return {
    maxMessageSize: params.maxMessageSize,
    maxRdmaSize: params.maxMessageSize,
    maxInline: 0, // LAPI always copies through HAL buffers: nothing is "inline"
    maxIov: 16,
    maxRecvDtos: 65_536,
    maxRequestDtos: 65_536,
    maxEvdQueueDepth: 1 << 20,
    maxPrivateData: 256, // exchanged in a LAPI message at set-up; not from the papers
    connQualRange: [1, 65_535],
  };
}
