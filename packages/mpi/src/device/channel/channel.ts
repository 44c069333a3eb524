/**
 * MPICH's Channel Interface (mpid/ch2; Selvarajan, "Implementation of MPICH on top of MP_Lite", ch. 6)
 * in TypeScript: the lowest layer under the ADI, which moves two kinds of messages between address
 * spaces — small control packets and the data that follows them on the same stream, in order.
 *
 * The five required functions are `controlMsgAvail`, `recvAnyControl`, `sendControl`,
 * `recvFromChannel` and `sendChannel` (their blocking forms return promises). The non-blocking
 * forms take a completion callback instead; the out-of-band form is the control handler, run as a
 * control packet arrives (the ADI's progress engine sees packets without polling for them).
 */

/** The control packets of the ch2 protocols (Selvarajan §6.2, Figs. 6.2-6.4). */
export enum ControlKind {
  /** Short protocol: the data is inside the packet. */
  SHORT = 1,
  /** Eager protocol: the data follows on the channel. */
  EAGER = 2,
  /** Rendezvous: request to send (the data waits at the sender). */
  REQUEST_TO_SEND = 3,
  /** Rendezvous: the receiver is ready; `receiverRequest` names its receive (0: nobody will take it, the sender drops it). */
  READY_TO_RECEIVE = 4,
  /** Rendezvous: the data follows on the channel, for the receive `receiverRequest`. */
  RENDEZVOUS_DATA = 5,
  /**
   * Receiver-initiated rendezvous (receive-advertising.ts), receiver to sender: a receive is posted
   * for the message `senderRequest` (its ordinal) of `context` and `tag` in epoch `source`, of up to
   * `size` bytes, its memory the next bulk receive; `receiverRequest` names it.
   */
  ADVERTISE = 6,
  /** Sender to receiver: the message for the advertised receive `receiverRequest`, its data on the bulk stream. */
  ADVERTISED_DATA = 7,
  /** Receiver to sender: decline every advertisement held; answer REVOKED with `receiverRequest`. */
  REVOKE = 8,
  /** Sender to receiver: the REVOKE naming `receiverRequest` is done. */
  REVOKED = 9,
}

/** A control packet (MPID_PKT_T). One object per decoder, reused: copy what outlives the handler. */
export interface ControlPacket {
  kind: ControlKind;
  /** ControlFlag bits. */
  flags: number;
  context: number;
  source: number;
  tag: number;
  /** The message's size in bytes. */
  size: number;
  senderRequest: number;
  receiverRequest: number;
  /** SHORT: the data, a view into the receive buffer (valid during the handler, or while the packet is kept). */
  payload: Uint8Array | undefined;
}

export const ControlFlag = {
  /** Sent in ready mode. */
  READY: 0x01,
  /** A synchronous send's request to send. */
  SYNC: 0x02,
  /** A request to send the receive's advertisement may claim (receive-advertising.ts): the receive it matches may adopt it. */
  CLAIMABLE: 0x04,
} as const;

export function emptyPacket(): ControlPacket {
  return { kind: ControlKind.SHORT, flags: 0, context: 0, source: 0, tag: 0, size: 0, senderRequest: 0, receiverRequest: 0, payload: undefined };
}

/** Set every field of `p` (no flags, no payload): a packet the device sends on its own account. */
export function fillPacket(p: ControlPacket, kind: ControlKind, context: number, source: number, tag: number, size: number, senderRequest: number, receiverRequest: number): ControlPacket {
  p.kind = kind;
  p.flags = 0;
  p.context = context;
  p.source = source;
  p.tag = tag;
  p.size = size;
  p.senderRequest = senderRequest;
  p.receiverRequest = receiverRequest;
  p.payload = undefined;
  return p;
}

/** A receive buffer a control handler keeps past its return (an unexpected short message held for lack of room). */
export interface KeptPacket {
  readonly from: number;
}

/**
 * Where the data that follows a control packet goes (the generalised `recvFromChannel` buffer):
 * `accept` is given each piece in order; true keeps the piece's receive buffer (it is returned
 * later with `Channel.release`), false lets the channel re-post it at once.
 */
export interface DataSink {
  accept(piece: Uint8Array, at: number, buffer: KeptPacket): boolean;
  /** All `length` bytes arrived. */
  done(): void;
  /** The stream broke before they did. */
  failed(error: Error): void;
}

/**
 * Called as each control packet arrives, in the order its sender sent it; a handler that expects
 * data after it must call `recvFromChannel` / `irecvFromChannel` before returning. It returns true
 * to keep the packet's buffer (a SHORT payload left in place), to be given back with `release`.
 */
export type ControlHandler = (packet: ControlPacket, from: number, buffer: KeptPacket) => boolean;

export interface Channel {
  /** MPID_ControlMsgAvail: a control packet is waiting to be read by `recvAnyControl` (no handler set). */
  controlMsgAvail(): boolean;
  /** MPID_RecvAnyControl: the next control packet from any peer, waiting for one (used when no handler is set). */
  recvAnyControl(): Promise<{ packet: ControlPacket; from: number }>;
  /** MPID_SendControl: resolves once the packet has left. */
  sendControl(packet: ControlPacket, dest: number): Promise<void>;
  /** MPID_RecvFromChannel: the data after the control packet just handled from `from`, into `buf`. */
  recvFromChannel(buf: Uint8Array, from: number): Promise<void>;
  /** MPID_SendChannel: `buf` on the stream to `dest` behind the control packets sent before it; resolves once it has left. */
  sendChannel(buf: Uint8Array, dest: number): Promise<void>;

  // ---- non-blocking forms --------------------------------------------------------------------
  isendControl(packet: ControlPacket, dest: number, onDone?: (error?: Error) => void): void;
  isendChannel(buf: Uint8Array, dest: number, onDone: (error?: Error) => void): void;
  irecvFromChannel(length: number, from: number, sink: DataSink): void;

  // ---- out of band ---------------------------------------------------------------------------
  /** Control packets go to `handler` as they arrive (undefined: they queue for `recvAnyControl`). */
  setControlHandler(handler: ControlHandler | undefined): void;
  /** Give back a buffer a handler or a sink kept. */
  release(buffer: KeptPacket): void;
  /** Called once per peer whose stream broke (its pending operations have failed). */
  onPeerLost(handler: (peer: number, error: Error) => void): void;
}
