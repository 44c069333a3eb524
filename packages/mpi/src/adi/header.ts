/**
 * The fixed header at the start of every message a device carries in a buffer (docs/mpi-design.md).
 * Encoded and decoded in place through the slot's own DataView: nothing is allocated per message.
 */
export const HEADER_BYTES = 48;

export enum MessageKind {
  /** Data follows the header. */
  EAGER = 1,
  /** Eager, and the sender waits for an ACK when it is matched (synchronous mode). */
  EAGER_SYNC = 2,
  /** Request to send: the data waits at the sender (rendezvous). */
  RTS = 3,
  /** Clear to send: the receiver's exposed buffer for an RDMA write (rendezvous by write). */
  CTS = 4,
  /**
   * Posted receives advertised to their sender (receiver-initiated rendezvous): `size` entries after
   * the header, each with context, tag, the receive's id, its buffer exposed for RDMA write, and
   * which message it will match (device/rdma/receive-notices.ts).
   */
  ADVERTISE = 5,
  /** The receiver takes advertised receives back (cancels): `size` entries; the sender forgets its advertisements for their context and tag. */
  REVOKE = 6,
}

export const HeaderFlag = {
  /** Sent in ready mode: a receive must already be posted. */
  READY: 0x01,
  /** RTS whose data the receiver reads (RDMA read); without it the receiver answers with CTS. */
  READ: 0x02,
  /** RTS of a synchronous send (informational: rendezvous is synchronous anyway). */
  SYNC: 0x04,
  /** RTS the sender keeps claimable: a late advertisement of the receive it matches makes it write (receiver-initiated rendezvous). */
  CLAIMABLE: 0x08,
} as const;

/** A decoded header (one reused object per decoder). */
export interface Header {
  kind: MessageKind;
  flags: number;
  credits: number;
  context: number;
  source: number;
  tag: number;
  size: number;
  senderRequest: number;
  receiverRequest: number;
  targetOffset: number;
  rmrContext: bigint;
}

export function emptyHeader(): Header {
  return { kind: MessageKind.EAGER, flags: 0, credits: 0, context: 0, source: 0, tag: 0, size: 0, senderRequest: 0, receiverRequest: 0, targetOffset: 0, rmrContext: 0n };
}

export function writeHeader(view: DataView, h: Header): void {
  view.setUint8(0, h.kind);
  view.setUint8(1, h.flags);
  view.setUint16(2, h.credits, true);
  view.setInt32(4, h.context, true);
  view.setInt32(8, h.source, true);
  view.setInt32(12, h.tag, true);
  view.setUint32(16, h.size, true);
  view.setUint32(20, h.senderRequest, true);
  view.setUint32(24, h.receiverRequest, true);
  view.setUint32(28, h.targetOffset, true);
  // Written for every kind (0 where there is none): send buffers are shared by all peers, and one
  // that last carried an RTS must not hand its RMR context to whoever the buffer goes to next.
  if (h.rmrContext === 0n) {
    // No BigInt conversion for the common case (every message but rendezvous requests).
    view.setUint32(32, 0, true);
    view.setUint32(36, 0, true);
  } else view.setBigUint64(32, h.rmrContext, true);
}

/** Only rendezvous requests carry an RMR context: the others skip the BigInt (an allocation) on decode. */

function carriesRmr(kind: MessageKind): boolean {
  return kind === MessageKind.RTS || kind === MessageKind.CTS;
}

/** Decode into `h`; returns false when the kind is unknown (a corrupt or foreign message). */
export function readHeader(view: DataView, h: Header): boolean {
  const kind = view.getUint8(0);
  if (kind < MessageKind.EAGER || kind > MessageKind.REVOKE) return false;
  h.kind = kind;
  h.flags = view.getUint8(1);
  h.credits = view.getUint16(2, true);
  h.context = view.getInt32(4, true);
  h.source = view.getInt32(8, true);
  h.tag = view.getInt32(12, true);
  h.size = view.getUint32(16, true);
  h.senderRequest = view.getUint32(20, true);
  h.receiverRequest = view.getUint32(24, true);
  h.targetOffset = view.getUint32(28, true);
  h.rmrContext = carriesRmr(kind) ? view.getBigUint64(32, true) : 0n;
  return true;
}
