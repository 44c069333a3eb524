import type { Socket } from 'node:net';
import { Fifo, type DtoRequest } from '@dapl/core/provider-kit';
import { FrameWriter } from './frame-writer.js';
import { FrameFlag, FrameType } from './wire/index.js';

/** A response to one of the peer's requests: its read's data, or a refusal. */
export interface Response {
  readonly type: FrameType.READ_RESP | FrameType.NAK;
  readonly seq: number;
  readonly status: number;
  readonly bytes: Uint8Array | undefined;
}

const OP_FRAME = { send: FrameType.SEND, 'rdma-write': FrameType.RDMA_WRITE, 'rdma-write-immediate': FrameType.RDMA_WRITE_IMM, 'rdma-read': FrameType.READ_REQ } as const;

/** A long stream of requests asks for an acknowledgement at least this often (bytes). */
const ACK_REQUEST_BYTES = 1024 * 1024;

/**
 * The outgoing side of a connection's data path, as frames: the endpoint's requests (queued in
 * `unsent`), the responses to the peer's reads and refusals (`responses`), cumulative
 * acknowledgements of the peer's requests (piggybacked on request frames, else an ACK frame) and
 * DISCONNECT, all through one `FrameWriter`. It keeps the sequence state those frames carry; when
 * they are written is the data path's decision.
 */
export class RequestWriter {
  readonly unsent = new Fifo<DtoRequest>(64);
  readonly responses = new Fifo<Response>(16);
  readonly frames: FrameWriter;
  /** The last of the peer's requests carried out here (what our frames acknowledge). */
  processedSeq = 0;
  ackOwed = false;
  /** The peer flagged a request it wants acknowledged (and no frame of ours has carried the ack yet). */
  ackRequested = false;
  /** The next flush writes an ACK whatever it owes (`probe`). */
  probeDue = false;
  /** The last of our requests put on the wire. */
  lastSentSeq = 0;
  /** A request posted with `localCompletion` has been written since the last local completion. */
  localWritten = false;
  private bytesSinceAckRequest = 0;
  /**
   * A request written since the last ACK_REQUEST completes only when acknowledged. Requests posted
   * with `localCompletion` complete once in the kernel: asking the peer to acknowledge them would
   * cost it a lone ACK frame whenever no request of its own carries the acknowledgement back on
   * this connection (a bulk transfer's receiver replies on another), and us the read of it.
   */
  private ackWanted = false;

  constructor(socket: Socket, copyThreshold: number) {
    this.frames = new FrameWriter(socket, copyThreshold);
  }

  /** Queued responses, in order, until the socket wants a drain (`all`: every one, past it). */
  writeResponses(all = false): void {
    const w = this.frames;
    for (let r = this.responses.shift(); r !== undefined; r = this.responses.shift()) {
      w.header(r.type, 0, r.status, r.bytes?.length ?? 0, r.seq, 0, 0, 0n, 0n);
      if (r.bytes !== undefined) w.payload(r.bytes, 0, r.bytes.length);
      if (!w.open && !all) break;
    }
  }

  /** A lone ACK; it acknowledges nothing until one of the peer's requests was carried out (a probe's may not). */
  writeAck(): void {
    this.frames.header(FrameType.ACK, this.processedSeq === 0 ? 0 : FrameFlag.ACK_VALID, 0, 0, 0, this.processedSeq, 0, 0n, 0n);
    this.ackOwed = false;
    this.ackRequested = false;
    this.probeDue = false;
  }

  writeDisconnect(): void {
    this.frames.header(FrameType.DISCONNECT, 0, 0, 0, 0, 0, 0, 0n, 0n);
  }

  /** One request as its frame, its payload from the caller's memory behind the header. */
  writeRequest(req: DtoRequest): void {
    const w = this.frames;
    const type = OP_FRAME[req.op];
    const isRead = type === FrameType.READ_REQ;
    const remote = req.remote;
    let flags = this.processedSeq === 0 ? 0 : FrameFlag.ACK_VALID;
    if (!isRead) {
      // Ask for an acknowledgement at the end of a burst, and at least every ACK_REQUEST_BYTES,
      // when a request waits for one.
      this.bytesSinceAckRequest += req.length;
      if (!req.localCompletion) this.ackWanted = true;
      if (this.ackWanted && (this.unsent.size === 0 || this.bytesSinceAckRequest >= ACK_REQUEST_BYTES)) {
        this.ackWanted = false;
        flags |= FrameFlag.ACK_REQUEST;
        this.bytesSinceAckRequest = 0;
      }
    }
    w.header(
      type,
      flags,
      0,
      isRead ? 0 : req.length,
      req.seq,
      this.processedSeq,
      isRead ? req.length : req.immediate,
      remote === undefined ? 0n : remote.rmrContext,
      remote === undefined ? 0n : BigInt(remote.targetOffset),
    );
    this.ackOwed = false;
    this.ackRequested = false;
    this.lastSentSeq = req.seq;
    if (req.localCompletion) this.localWritten = true;
    if (!isRead) {
      for (const seg of req.iov) w.payload(seg.lmr.bytes, seg.offset, seg.length);
    }
  }
}
