import type { Clock } from '@dapl/core';
import type { RecvRequest } from '../../adi/requests.js';
import { unpackPiece } from '../span-bytes.js';
import type { Channel, ControlKind, DataSink, KeptPacket } from './channel.js';

/** A piece of eager data left in its receive buffer. */
interface HeldPiece {
  readonly piece: Uint8Array;
  readonly at: number;
  readonly buffer: KeptPacket;
}

/**
 * A message that arrived on the channel and matched no receive (the `deviceState` of its
 * IncomingMessage): a SHORT packet's data, eager data still coming or come, or a request to send.
 * Its data is either copied out (counted in the unexpected bytes) or held in the receive buffers
 * it landed in (keeping their credits) until a receive takes it or one waits on its sender.
 */
export class ChannelArrival implements DataSink {
  /** SHORT: the receive buffer its payload is in, while held. */
  packet: KeptPacket | undefined = undefined;
  /** SHORT: being decided inside the channel's control handler (the channel re-posts the buffer unless it is kept). */
  inHandler = false;
  /** Eager data copied out (allocated at `keep`). */
  data: Uint8Array | undefined = undefined;
  /** Eager data held in receive buffers, oldest first. */
  pieces: HeldPiece[] | undefined = undefined;
  /** Counted in the unexpected bytes. */
  copied = false;
  /** Eager: bytes arrived, and whether all have. */
  received = 0;
  complete = false;
  /** A request to send, counted for receiver-initiated rendezvous: its epoch and ordinal (0: not counted). */
  epoch = 0;
  ordinal = 0;
  /** Eager data still coming when a receive took the message: it goes there (or nowhere, if discarded). */
  taker: RecvRequest | 'discarded' | undefined = undefined;

  constructor(
    readonly from: number,
    readonly kind: ControlKind,
    readonly source: number,
    readonly tag: number,
    readonly senderRequest: number,
    readonly size: number,
    private readonly channel: Channel,
    private readonly clock: Clock,
    private readonly onComplete: (arrival: ChannelArrival) => void,
    private readonly onFailed: (arrival: ChannelArrival, error: Error) => void,
  ) {}

  accept(piece: Uint8Array, at: number, buffer: KeptPacket): boolean {
    this.received = at + piece.length;
    const taker = this.taker;
    if (taker === 'discarded') return false;
    if (taker !== undefined) {
      unpackPiece(taker.data, piece, at, this.clock);
      return false;
    }
    if (this.data !== undefined) {
      this.data.set(piece, at);
      this.clock.chargeCopy(piece.length);
      return false;
    }
    (this.pieces ??= []).push({ piece, at, buffer });
    return true;
  }

  done(): void {
    this.complete = true;
    this.onComplete(this);
  }

  failed(error: Error): void {
    this.onFailed(this, error);
  }

  /** Copy what is held into memory of its own and give the buffers back. */
  copyOut(): void {
    if (this.data === undefined && this.size > 0 && this.packet === undefined) this.data = new Uint8Array(this.size);
    const pieces = this.pieces;
    this.pieces = undefined;
    if (pieces !== undefined) {
      for (const p of pieces) {
        this.data!.set(p.piece, p.at);
        this.clock.chargeCopy(p.piece.length);
        this.channel.release(p.buffer);
      }
    }
    this.copied = true;
  }

  /** A receive takes the message: what has arrived goes into it, the buffers go back; the rest will follow there. */
  deliverTo(request: RecvRequest, shortPayload: Uint8Array | undefined): void {
    const span = request.data;
    if (shortPayload !== undefined) unpackPiece(span, shortPayload, 0, this.clock);
    if (this.data !== undefined) unpackPiece(span, this.received === this.data.length ? this.data : this.data.subarray(0, this.received), 0, this.clock);
    this.#releaseHeld((p) => unpackPiece(span, p.piece, p.at, this.clock));
    this.data = undefined;
    this.taker = request;
  }

  /** Nobody will receive it: give its buffers back and drop what still comes. */
  drop(): void {
    this.#releaseHeld(() => undefined);
    this.data = undefined;
    this.taker = 'discarded';
  }

  #releaseHeld(each: (p: HeldPiece) => void): void {
    if (this.packet !== undefined) {
      this.channel.release(this.packet);
      this.packet = undefined;
    }
    const pieces = this.pieces;
    this.pieces = undefined;
    if (pieces === undefined) return;
    for (const p of pieces) {
      each(p);
      this.channel.release(p.buffer);
    }
  }
}
