/** The frame types of the TCP wire protocol (header byte 0). */
export enum FrameType {
  CHALLENGE = 1,
  HELLO = 2,
  ACCEPT = 3,
  REJECT = 4,
  SEND = 5,
  RDMA_WRITE = 6,
  RDMA_WRITE_IMM = 7,
  READ_REQ = 8,
  READ_RESP = 9,
  ACK = 10,
  NAK = 11,
  DISCONNECT = 12,
}

/** Header byte 1. */
export const FrameFlag = {
  /** The `ack` field carries a cumulative acknowledgement. */
  ACK_VALID: 0x01,
  /**
   * The initiator wants an acknowledgement up to this request soon, even if the target has
   * nothing to send back (InfiniBand's BTH AckReq bit). Set on the last request of a burst,
   * so a stream of requests is acknowledged once per burst instead of once per read.
   */
  ACK_REQUEST: 0x02,
} as const;

/** Every flag bit this version understands; any other bit is a protocol error. */
export const KNOWN_FLAGS = FrameFlag.ACK_VALID | FrameFlag.ACK_REQUEST;

export function isFrameType(value: number): value is FrameType {
  return Number.isInteger(value) && value >= FrameType.CHALLENGE && value <= FrameType.DISCONNECT;
}

/** Connection set-up frames: their payloads are small, length-prefixed records. */
export function isControlFrame(type: FrameType): boolean {
  return type >= FrameType.CHALLENGE && type <= FrameType.REJECT;
}

/** Frames whose payloadLength must be 0. */
export function mustHaveNoPayload(type: FrameType): boolean {
  return (
    type === FrameType.ACK || type === FrameType.NAK || type === FrameType.READ_REQ || type === FrameType.DISCONNECT
  );
}
