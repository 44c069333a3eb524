/** The provider kit's streaming FrameDecoder, configured with the TCP header. */
import { FrameDecoder, type FrameConsumer, type FrameFormat } from '@dapl/core/provider-kit';
import { checkWireLimits, decodeHeader, decodeHeaderInto, emptyHeader, HEADER_SIZE, type TcpFrameHeader, type WireLimits } from './header.js';

export interface TcpFrameFormatOptions {
  /**
   * Decode every header into one object (the connection's hot path: no allocation per frame).
   * The consumer must then copy what it keeps: the object changes with the next frame.
   */
  readonly reuseHeader?: boolean;
}

export function tcpFrameFormat(limits: WireLimits, options: TcpFrameFormatOptions = {}): FrameFormat<TcpFrameHeader> {
  checkWireLimits(limits);
  const bound: WireLimits = { maxPayload: limits.maxPayload };
  if (options.reuseHeader === true) {
    const header = emptyHeader();
    return {
      headerSize: HEADER_SIZE,
      parseHeader: (bytes) => decodeHeaderInto(bytes, bound, header) ?? header,
      parseHeaderAt: (bytes, offset) => decodeHeaderInto(bytes, bound, header, offset) ?? header,
      payloadLength: (h) => h.payloadLength,
    };
  }
  return {
    headerSize: HEADER_SIZE,
    parseHeader: (bytes) => decodeHeader(bytes, bound),
    payloadLength: (h) => h.payloadLength,
  };
}

export class TcpFrameDecoder extends FrameDecoder<TcpFrameHeader> {
  constructor(limits: WireLimits, consumer: FrameConsumer<TcpFrameHeader>, options: TcpFrameFormatOptions = {}) {
    super(tcpFrameFormat(limits, options), consumer);
  }
}
