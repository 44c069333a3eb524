import { DtoStatus } from '@dapl/core';
import type { Iov } from '@dapl/core';
import { IovWriter, type FrameSink, type PostedRecv } from '@dapl/core/provider-kit';
import { FrameType, NakStatus } from './wire/index.js';
import type { DataPathHost } from './progress.js';

/**
 * What a payload sink reports back to its connection's data path (`DataPath` in progress.ts): the
 * frame it placed is processed, an acknowledgement owed, a NAK or read response to send.
 */
export interface SinkPath {
  readonly host: DataPathHost;
  /** Our half-close has gone out: what arrives now can never be acknowledged. */
  readonly ended: boolean;
  /** Whether the frame being placed asked for an acknowledgement. */
  readonly frameRequestsAck: boolean;
  processed(seq: number): void;
  owe(requested: boolean): void;
  respond(seq: number, type: FrameType.READ_RESP | FrameType.NAK, status: number, bytes: Uint8Array | undefined): void;
  readCompleted(): void;
}

/**
 * A sink whose destination can take input straight from the socket (`InputTarget.directRoom`):
 * `room()` is the contiguous destination of the payload bytes still to come, or undefined when
 * there is none (a scattered iov's later segments, a payload that is dropped).
 */
export interface DirectSink extends FrameSink {
  room(): Uint8Array | undefined;
}

/** Whether `piece` is the view `room` starts with: input read in place, nothing to copy. */
function inPlace(piece: Uint8Array, dest: Uint8Array, at: number): boolean {
  return piece.buffer === dest.buffer && piece.byteOffset === dest.byteOffset + at;
}

// The frame sinks of the tcp data path: where an incoming frame's payload goes, one reusable sink of
// each kind per connection (no allocation per frame).

/** A SEND's payload into the oldest posted receive (or dropped with a NAK if it does not fit). */
export class RecvSink implements DirectSink {
  private recv: PostedRecv | undefined;
  private readonly writer = new IovWriter([]);
  /** The receive's one segment, when it has one (the common case): placed without the iov walk. */
  private single: Uint8Array = EMPTY;
  private at = 0;
  private seq = 0;
  private length = 0;
  private fits = true;
  private requested = false;

  constructor(private readonly path: SinkPath) {}

  start(recv: PostedRecv, seq: number, length: number): FrameSink {
    this.requested = this.path.frameRequestsAck;
    this.recv = recv;
    this.seq = seq;
    this.length = length;
    this.fits = recv.length >= length;
    this.at = 0;
    this.single = EMPTY;
    if (this.fits && recv.iov.length === 1) {
      const seg = recv.iov[0];
      this.single = seg.lmr.bytes.subarray(seg.offset, seg.offset + length);
    } else if (this.fits) {
      this.writer.reset(recv.iov);
    }
    return this;
  }

  room(): Uint8Array | undefined {
    return this.single === EMPTY ? undefined : this.single.subarray(this.at);
  }

  write(piece: Uint8Array): void {
    if (!this.fits) return;
    if (this.recv!.iov.length !== 1) {
      this.writer.write(piece);
      return;
    }
    if (!inPlace(piece, this.single, this.at)) this.single.set(piece, this.at);
    this.at += piece.length;
  }

  /** The stream ended inside the payload: the receive being filled, if any, handed back. */
  abandon(): PostedRecv | undefined {
    const recv = this.recv;
    this.recv = undefined;
    this.single = EMPTY;
    return recv;
  }

  end(): void {
    const recv = this.recv!;
    this.recv = undefined;
    this.single = EMPTY;
    const { path, seq } = this;
    // Our half-close went out while its payload came: it cannot be acknowledged, so it fails here
    // as at the peer (the oldest receive taken, so post order holds).
    if (path.ended) return path.host.completeRecv(recv, DtoStatus.FLUSHED, 0);
    if (this.fits) {
      path.host.completeRecv(recv, DtoStatus.SUCCESS, this.length);
      path.processed(seq);
      path.owe(this.requested);
    } else {
      path.host.completeRecv(recv, DtoStatus.LOCAL_LENGTH, 0);
      path.processed(seq);
      path.respond(seq, FrameType.NAK, NakStatus.REMOTE_LENGTH, undefined);
    }
  }
}

/** An RDMA write's payload into the granted target window, then the doorbell if it has one. */
export class WriteSink implements DirectSink {
  private bytes: Uint8Array = EMPTY;
  private at = 0;
  private end_ = 0;
  private seq = 0;
  private length = 0;
  private withImmediate = false;
  private immediate = 0;
  private requested = false;

  constructor(private readonly path: SinkPath) {}

  start(bytes: Uint8Array, at: number, seq: number, length: number, withImmediate: boolean, immediate: number): FrameSink {
    this.requested = this.path.frameRequestsAck;
    this.bytes = bytes;
    this.at = at;
    this.end_ = at + length;
    this.seq = seq;
    this.length = length;
    this.withImmediate = withImmediate;
    this.immediate = immediate;
    return this;
  }

  room(): Uint8Array | undefined {
    return this.bytes === EMPTY ? undefined : this.bytes.subarray(this.at, this.end_);
  }

  write(piece: Uint8Array): void {
    if (!inPlace(piece, this.bytes, this.at)) this.bytes.set(piece, this.at);
    this.at += piece.length;
  }

  end(): void {
    this.bytes = EMPTY;
    // Placed, but after our half-close: never acknowledged, so the peer flushes it; no doorbell here.
    if (this.path.ended) return;
    this.path.processed(this.seq);
    if (this.withImmediate) this.path.host.raiseImmediate(this.immediate, this.length);
    this.path.owe(this.requested);
  }
}

/** The payload of a refused write: consumed, dropped, answered with a NAK. */
export class RefusedSink implements FrameSink {
  private seq = 0;
  private status = 0;

  constructor(private readonly path: SinkPath) {}

  start(seq: number, status: number): FrameSink {
    this.seq = seq;
    this.status = status;
    return this;
  }

  write(): void {}

  end(): void {
    this.path.processed(this.seq);
    this.path.respond(this.seq, FrameType.NAK, this.status, undefined);
  }
}

/** A read response into the head request's local iov. */
export class ReadResponseSink implements DirectSink {
  private readonly writer = new IovWriter([]);
  /** The read's one local segment, when it has one: placed without the iov walk. */
  private single: Uint8Array = EMPTY;
  private at = 0;

  constructor(private readonly path: SinkPath) {}

  start(iov: Iov, length: number): FrameSink {
    this.at = 0;
    if (iov.length === 1) {
      this.single = iov[0].lmr.bytes.subarray(iov[0].offset, iov[0].offset + length);
    } else {
      this.single = EMPTY;
      this.writer.reset(iov);
    }
    return this;
  }

  room(): Uint8Array | undefined {
    return this.single === EMPTY ? undefined : this.single.subarray(this.at);
  }

  write(piece: Uint8Array): void {
    if (this.single === EMPTY) {
      this.writer.write(piece);
      return;
    }
    if (!inPlace(piece, this.single, this.at)) this.single.set(piece, this.at);
    this.at += piece.length;
  }

  end(): void {
    this.single = EMPTY;
    this.path.readCompleted();
  }
}

const EMPTY = new Uint8Array(0);
