/** The provider kit's streaming FrameDecoder, configured with the TCP header. */
import {
  FrameDecoder,
  type FrameConsumer,
  type FrameFormat,
} from '@dapl/core/provider-kit';
import { checkWireLimits, decodeHeader, HEADER_SIZE, type TcpFrameHeader, type WireLimits } from './header.js';

export function tcpFrameFormat(limits: WireLimits): FrameFormat<TcpFrameHeader> {
  checkWireLimits(limits);
  const bound: WireLimits = { maxPayload: limits.maxPayload };
  return {
    headerSize: HEADER_SIZE,
    parseHeader: (bytes) => decodeHeader(bytes, bound),
    payloadLength: (header) => header.payloadLength,
  };
}

export class TcpFrameDecoder extends FrameDecoder<TcpFrameHeader> {
  constructor(limits: WireLimits, consumer: FrameConsumer<TcpFrameHeader>) {
    super(tcpFrameFormat(limits), consumer);
  }
}
