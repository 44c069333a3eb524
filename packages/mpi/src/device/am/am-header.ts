/**
 * The user header of the am device's Amsends (MPI-LAPI's msg_description, 32 bytes little endian):
 * the envelope, both ends' request ids, flags, and credits returned. Encoded into one reused buffer
 * (LAPI copies the header at the call) and decoded in place by the header handlers.
 */
export const AM_HEADER_BYTES = 32;

/** Header handler ids of the am device's messages (MPI-LAPI's Eager_hdr_hdl, Request_to_send_hdr_hdl …). */
export const AmHandler = {
  /** Eager: the data, into the posted receive's buffer or an early-arrival buffer. */
  EAGER: 0x4d50_0001,
  /** Rendezvous, first phase: request to send (no data). */
  REQUEST_TO_SEND: 0x4d50_0002,
  /** The receiver's acknowledgement of a request to send (Request_to_send_acked). */
  ACKNOWLEDGED: 0x4d50_0003,
  /** Rendezvous, second phase: the data, straight into the matched receive's buffer. */
  DATA: 0x4d50_0004,
  /** Early-arrival room given back to the sender (bounded unexpected memory). */
  CREDIT: 0x4d50_0005,
} as const;

/** Target counters, one per source rank (MPI-LAPI Counters: ids fixed by rank, so nothing is exchanged at init). */
export const COUNTER_BASE = 0x4d51_0000;

export const AmFlag = {
  READY: 0x01,
  SYNC: 0x02,
} as const;

export interface AmHeader {
  context: number;
  source: number;
  tag: number;
  size: number;
  senderRequest: number;
  receiverRequest: number;
  flags: number;
  /** The sender's world rank (the handler's LAPI task number is the node, not necessarily the rank). */
  from: number;
}

export function emptyAmHeader(): AmHeader {
  return { context: 0, source: 0, tag: 0, size: 0, senderRequest: 0, receiverRequest: 0, flags: 0, from: 0 };
}

export function writeAmHeader(view: DataView, h: AmHeader): void {
  view.setInt32(0, h.context, true);
  view.setInt32(4, h.source, true);
  view.setInt32(8, h.tag, true);
  view.setUint32(12, h.size, true);
  view.setUint32(16, h.senderRequest, true);
  view.setUint32(20, h.receiverRequest, true);
  view.setUint32(24, h.flags, true);
  view.setUint32(28, h.from, true);
}

/** Decode a user header into `h` (every header handler: no view allocated per message). */
export function readAmHeader(bytes: Uint8Array, h: AmHeader): void {
  h.context = int32At(bytes, 0);
  h.source = int32At(bytes, 4);
  h.tag = int32At(bytes, 8);
  h.size = int32At(bytes, 12) >>> 0;
  h.senderRequest = int32At(bytes, 16) >>> 0;
  h.receiverRequest = int32At(bytes, 20) >>> 0;
  h.flags = int32At(bytes, 24) >>> 0;
  h.from = int32At(bytes, 28) >>> 0;
}

/** The little-endian int32 at `at`. */
function int32At(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24);
}
