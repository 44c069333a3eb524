import type { Clock } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { IncomingMessage, RecvRequest } from '../../adi/requests.js';
import { unpackPiece } from '../span-bytes.js';
import type { ChannelArrival } from './channel-arrival.js';
import { ControlFlag, type ControlPacket, type DataSink } from './channel.js';

/** A matched receive whose data comes on the channel (eager after its packet, or rendezvous after ready-to-receive). */
export class ReceiveSink implements DataSink {
  constructor(
    readonly request: RecvRequest,
    readonly from: number,
    readonly source: number,
    readonly tag: number,
    readonly size: number,
    private readonly clock: Clock,
  ) {}

  accept(piece: Uint8Array, at: number): boolean {
    unpackPiece(this.request.data, piece, at, this.clock);
    return false;
  }

  done(): void {
    this.request.finish(this.source, this.tag, this.size);
  }

  failed(error: Error): void {
    if (!this.request.done) this.request.fail(lostPeer(this.from, error));
  }
}

/** Data nobody takes (a rendezvous whose receive is gone). */
export const DROP: DataSink = { accept: () => false, done: () => undefined, failed: () => undefined };

export function incoming(from: number, packet: ControlPacket, payload: Uint8Array | undefined, arrival: ChannelArrival): IncomingMessage {
  return {
    peer: from,
    context: packet.context,
    source: packet.source,
    tag: packet.tag,
    size: packet.size,
    payload,
    synchronous: (packet.flags & ControlFlag.SYNC) !== 0,
    ready: (packet.flags & ControlFlag.READY) !== 0,
    deviceState: arrival,
  };
}

export function lostPeer(peer: number, cause: Error): MpiError {
  return new MpiError(ErrorClass.ERR_PROC_FAILED, `the channel to rank ${peer} failed: ${cause.message}`, { cause });
}
