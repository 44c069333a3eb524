import type { DtoCapability, IaLimits, ProviderCapabilities } from '@dapl/core';
import type { TcpParameters } from './params.js';

export const TCP_DTO_CAPABILITIES: readonly DtoCapability[] = ['rdma-write', 'rdma-read', 'rdma-write-immediate'];

export const TCP_CAPABILITIES: ProviderCapabilities = {
  dto: TCP_DTO_CAPABILITIES,
  extensions: [],
  inProcess: false,
};

/** Limits as data (libfabric's `*_attr.c`); only the message size is a parameter. */
export function tcpLimits(params: TcpParameters): IaLimits {
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

/** Unanswered READ_REQs the target queues before it stops reading the connection. */
export const MAX_QUEUED_RESPONSES = 4096;
