/** The TCP provider's wire protocol: frame header, set-up payloads, authentication, decoder. */
export { FrameType, FrameFlag, KNOWN_FLAGS, isFrameType, isControlFrame, mustHaveNoPayload } from './frame-type.js';
export {
  NakStatus,
  isNakStatus,
  nakStatusToCompletion,
  nakStatusFromDatStatus,
  type NakCompletion,
} from './nak-status.js';
export {
  HEADER_SIZE,
  CONTROL_PAYLOAD_LIMIT,
  encodeHeader,
  writeHeader,
  decodeHeaderInto,
  emptyHeader,
  type MutableTcpFrameHeader,
  encodeFrame,
  decodeHeader,
  checkWireLimits,
  type TcpFrameHeader,
  type HeaderFields,
  type WireLimits,
} from './header.js';
export {
  WIRE_VERSION,
  MAX_ADDRESS_LENGTH,
  MAX_PRIVATE_DATA_LENGTH,
  encodeChallenge,
  decodeChallenge,
  encodeHello,
  decodeHello,
  encodeAccept,
  decodeAccept,
  encodeReject,
  decodeReject,
  type Challenge,
  type Hello,
  type Accept,
  type Reject,
} from './control-payloads.js';
export {
  NONCE_SIZE,
  PROOF_SIZE,
  newNonce,
  helloProof,
  acceptProof,
  rejectProof,
  verifyHelloProof,
  verifyAcceptProof,
  verifyRejectProof,
} from './auth.js';
export { TcpFrameDecoder, tcpFrameFormat, type TcpFrameFormatOptions } from './tcp-frame-decoder.js';
