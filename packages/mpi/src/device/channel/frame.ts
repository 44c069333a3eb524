import type { ControlPacket } from './channel.js';

/**
 * The frame every message of the DAT channel starts with (32 bytes, little endian): what the frame
 * is, the credits it returns, and for a control frame the packet. A data frame's payload follows
 * the header; so does a SHORT packet's data.
 *
 * | bytes | field |
 * |---|---|
 * | 0 | frame: CONTROL, DATA, CREDIT |
 * | 1 | control kind |
 * | 2 | control flags |
 * | 4-7 | receive buffers returned to the receiver of this frame |
 * | 8-31 | context, source, tag, size, sender request, receiver request (int32 / uint32) |
 */
export const FRAME_BYTES = 32;

export enum FrameKind {
  CONTROL = 1,
  DATA = 2,
  /** Nothing but returned credits. */
  CREDIT = 3,
}

export function writeFrame(view: DataView, kind: FrameKind, credits: number, packet: ControlPacket | undefined): void {
  view.setUint8(0, kind);
  view.setUint32(4, credits, true);
  if (packet === undefined) return;
  view.setUint8(1, packet.kind);
  view.setUint8(2, packet.flags);
  view.setInt32(8, packet.context, true);
  view.setInt32(12, packet.source, true);
  view.setInt32(16, packet.tag, true);
  view.setUint32(20, packet.size, true);
  view.setUint32(24, packet.senderRequest, true);
  view.setUint32(28, packet.receiverRequest, true);
}

export function frameKind(view: DataView): number {
  return view.getUint8(0);
}

export function frameCredits(view: DataView): number {
  return view.getUint32(4, true);
}

/** Decode a control frame's packet into `packet` (its payload is set by the caller). */
export function readPacket(view: DataView, packet: ControlPacket): void {
  packet.kind = view.getUint8(1);
  packet.flags = view.getUint8(2);
  packet.context = view.getInt32(8, true);
  packet.source = view.getInt32(12, true);
  packet.tag = view.getInt32(16, true);
  packet.size = view.getUint32(20, true);
  packet.senderRequest = view.getUint32(24, true);
  packet.receiverRequest = view.getUint32(28, true);
}
