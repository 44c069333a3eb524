import { Fifo, type Endpoint } from '@dapl/core';
import type { ControlPacket, DataSink } from './channel.js';

/** Something waiting to go out on a peer's stream, in order. */
export type Outgoing = OutgoingControl | OutgoingData;

/** A control packet (copied: the caller's object is reused) and, for SHORT, its data. */
export interface OutgoingControl {
  readonly type: 'control';
  readonly packet: ControlPacket;
  /** Written into a frame and posted (until then a SHORT payload may be the caller's memory). */
  posted: boolean;
  readonly onDone: ((error?: Error) => void) | undefined;
}

/** Data on the channel, sent in frames of at most the packet size. */
export interface OutgoingData {
  readonly type: 'data';
  readonly bytes: Uint8Array;
  /** Bytes handed to the transport so far. */
  sent: number;
  readonly onDone: (error?: Error) => void;
}

/** Data the channel is receiving from the peer, into a sink. */
export interface Incoming {
  readonly length: number;
  received: number;
  readonly sink: DataSink;
}

/**
 * One peer's stream through the DAT channel (MP_Lite's per-peer socket): the endpoint, the credit
 * window (the peer's receive buffers we may fill), buffers we re-posted for the peer and not yet
 * returned, what waits to go out and the data being received, both in stream order.
 */
export class PeerStream {
  sendEp: Endpoint | undefined = undefined;
  connecting = false;
  failed: Error | undefined = undefined;
  credits: number;
  /** Receive buffers re-posted for the peer that it has not been told about. */
  pendingReturn = 0;
  /** Receive buffers of the peer's frames that a handler or sink keeps. */
  kept = 0;
  readonly outgoing = new Fifo<Outgoing>(16);
  readonly incoming = new Fifo<Incoming>(4);
  /** Data frames that came before `recvFromChannel` was called for them (blocking forms only), in order. */
  readonly early: { readonly buffer: unknown; readonly length: number }[] = [];

  constructor(
    readonly peer: number,
    readonly window: number,
  ) {
    this.credits = window;
  }

  get connected(): boolean {
    return this.sendEp !== undefined;
  }
}
