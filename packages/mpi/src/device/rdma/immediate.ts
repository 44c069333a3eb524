/**
 * Small signals ride in the 32-bit immediate of a 0-byte RDMA write into the peer's doorbell
 * window: no receive buffer is consumed, so they need no credit. `kind` in the top 3 bits, a 29-bit
 * value below (a request id or a credit count).
 */
export enum ImmediateKind {
  /** `value` receive buffers were re-posted for the peer. */
  CREDIT = 1,
  /** The receiver has read the data of the sender's request `value` (rendezvous by read). */
  FIN_READ = 2,
  /** A synchronous-mode eager message of the sender's request `value` was matched. */
  SYNC_ACK = 3,
  /** The sender has written the data for the receiver's request `value` (rendezvous by write). */
  FIN_WRITE = 4,
  /** The sender has written a message into the receiver's advertised request `value` (its length is the write's). */
  FIN_ADVERTISED = 5,
  /** The sender has forgotten the advertisement of the receiver's request `value` (the answer to REVOKE). */
  REVOKED = 6,
}

const VALUE_BITS = 29;
const VALUE_MASK = (1 << VALUE_BITS) - 1;

export function encodeImmediate(kind: ImmediateKind, value: number): number {
  return ((kind << VALUE_BITS) | (value & VALUE_MASK)) >>> 0;
}

export function immediateKind(immediate: number): number {
  return immediate >>> VALUE_BITS;
}

export function immediateValue(immediate: number): number {
  return immediate & VALUE_MASK;
}
