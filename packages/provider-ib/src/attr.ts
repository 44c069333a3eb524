import type { DtoCapability, IaLimits, ProviderCapabilities } from '@dapl/core';
import type { IbParameters } from './params.js';

export const IB_DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

export const IB_CAPABILITIES: ProviderCapabilities = { dto: IB_DTO_CAPABILITIES, extensions: [], inProcess: true };

/** Limits as data; MT23108-like queue sizes. */
export function ibLimits(params: IbParameters): IaLimits {
  return {
    maxMessageSize: params.maxMessageSize,
    maxRdmaSize: params.maxMessageSize,
    maxInline: params.inlineBytes,
    maxIov: 16,
    maxRecvDtos: 65_536,
    maxRequestDtos: 65_536,
    maxEvdQueueDepth: 1 << 20,
    maxPrivateData: 92, // an IB CM REQ carries 92 bytes of private data
    connQualRange: [1, 65_535],
  };
}
