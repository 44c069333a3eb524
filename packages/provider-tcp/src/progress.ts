import type { Socket } from 'node:net';
import type { DatStatus} from '@dapl/core';
import { DtoStatus, MemAccess } from '@dapl/core';
import { Fifo, IovWriter, type DtoRequest, type KitPz, type PostedRecv, type RmrTable } from '@dapl/core/provider-kit';
import type { FrameSink } from '@dapl/core/provider-kit';
import { MAX_QUEUED_RESPONSES } from './attr.js';
import { ProtocolError } from './protocol-error.js';
import { FrameWriter } from './output.js';
import { FrameFlag, FrameType, nakStatusFromDatStatus, nakStatusToCompletion, NakStatus, type TcpFrameHeader } from './wire/index.js';

/** What the data path needs from its endpoint (the kit's protected helpers, made reachable). */
export interface DataPathHost {
  readonly pz: KitPz;
  readonly rmrTable: RmrTable;
  peekRequest(): DtoRequest | undefined;
  completeRequest(status: DtoStatus, reason?: DatStatus): void;
  peekRecv(): PostedRecv | undefined;
  takeRecv(): PostedRecv | undefined;
  completeRecv(recv: PostedRecv, status: DtoStatus, length: number): void;
  raiseImmediate(immediate: number, length: number): void;
  recvEvdHasRoom(): boolean;
  onRecvEvdRoom(listener: () => void): void;
}

interface Response {
  readonly type: FrameType.READ_RESP | FrameType.NAK;
  readonly seq: number;
  readonly status: number;
  readonly bytes: Uint8Array | undefined;
}

const OP_FRAME = { send: FrameType.SEND, 'rdma-write': FrameType.RDMA_WRITE, 'rdma-write-immediate': FrameType.RDMA_WRITE_IMM, 'rdma-read': FrameType.READ_REQ } as const;

/** a < b in wrapping 32-bit sequence space. */
function seqBefore(a: number, b: number): boolean {
  return a !== b && ((b - a) >>> 0) < 0x8000_0000;
}

function nextSeq(seq: number): number {
  return seq === 0xffff_ffff ? 1 : seq + 1;
}

const DISCARD: FrameSink = { write() {}, end() {} };

/**
 * The data path of an established connection. Outgoing: the endpoint's requests as frames,
 * responses to the peer's reads, and cumulative acknowledgements (piggybacked on request
 * frames, else an ACK frame), flushed in one coalesced write per turn, stopping while the
 * socket wants a drain. Incoming: the peer's requests are carried out in order — a SEND
 * without a posted receive pauses the stream (backpressure) — and their acknowledgements,
 * NAKs and read responses complete this endpoint's requests in post order. A peer that breaks
 * the protocol gets a `ProtocolError` thrown, which breaks only this connection.
 *
 * Ordering rule that keeps acknowledgements honest: responses (NAK, READ_RESP) are written
 * before any frame carrying an ack, so an ack never overtakes the NAK of an earlier request.
 */
export class DataPath {
  private readonly unsent = new Fifo<DtoRequest>(64);
  private readonly responses = new Fifo<Response>(16);
  private readonly writer: FrameWriter;
  /** The last of the peer's requests carried out here. */
  private processedSeq = 0;
  private expectedSeq = 1;
  private ackOwed = false;
  /** The last of our requests put on the wire. */
  private lastSentSeq = 0;
  private flushScheduled = false;
  private ackFlushScheduled = false;
  private blocked = false;
  private closing = false;
  private closed = false;
  /** Why incoming frames are paused, if they are. */
  private stall: 'recv' | 'evd' | 'responses' | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly host: DataPathHost,
    copyThreshold: number,
    private readonly resumeInput: () => void,
  ) {
    this.writer = new FrameWriter(socket, copyThreshold);
    socket.on('drain', () => {
      this.blocked = false;
      this.flush();
    });
  }

  // ---- outgoing --------------------------------------------------------------------------

  submit(request: DtoRequest): void {
    this.unsent.push(request);
    this.scheduleFlush();
  }

  /** Graceful close: what is queued goes out, then DISCONNECT and a half-close. */
  close(): void {
    this.closing = true;
    this.scheduleFlush();
  }

  /** Stop for good (the socket is gone); queued requests are flushed by the endpoint. */
  stop(): void {
    this.closed = true;
    this.unsent.drain();
    this.responses.drain();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** A lone ACK waits a turn of the event loop, so a reply the consumer posts meanwhile carries it. */
  private scheduleAck(): void {
    if (this.ackFlushScheduled) return;
    this.ackFlushScheduled = true;
    setImmediate(() => {
      this.ackFlushScheduled = false;
      if (this.ackOwed) this.flush();
    });
  }

  private flush(): void {
    if (this.blocked || this.closed || this.socket.destroyed) return;
    const w = this.writer;
    w.begin();
    for (let r = this.responses.shift(); r !== undefined; r = this.responses.shift()) {
      w.header({ type: r.type, seq: r.seq, status: r.status, payloadLength: r.bytes?.length ?? 0 });
      if (r.bytes !== undefined) w.payload(r.bytes);
      if (!w.open) break;
    }
    if (this.responses.size === 0 && this.stall === 'responses') this.unstall();
    while (w.open && this.responses.size === 0) {
      const req = this.unsent.shift();
      if (req === undefined) break;
      this.writeRequest(w, req);
    }
    if (this.ackOwed && w.open && this.responses.size === 0) {
      w.header({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: this.processedSeq });
      this.ackOwed = false;
    }
    if (this.closing && this.unsent.size === 0 && this.responses.size === 0 && w.open) {
      w.header({ type: FrameType.DISCONNECT });
      this.closing = false;
      w.end();
      this.socket.end();
      return;
    }
    if (!w.end()) {
      this.blocked = true;
    }
  }

  private writeRequest(w: FrameWriter, req: DtoRequest): void {
    const type = OP_FRAME[req.op];
    const isRead = type === FrameType.READ_REQ;
    const remote = req.remote;
    const flags = this.processedSeq === 0 ? 0 : FrameFlag.ACK_VALID;
    w.header({
      type,
      flags,
      seq: req.seq,
      ack: this.processedSeq,
      payloadLength: isRead ? 0 : req.length,
      aux: isRead ? req.length : req.immediate,
      rmrContext: remote === undefined ? 0n : remote.rmrContext,
      targetOffset: remote === undefined ? 0n : BigInt(remote.targetOffset),
    });
    this.ackOwed = false;
    this.lastSentSeq = req.seq;
    if (!isRead) {
      for (const seg of req.iov) if (seg.length > 0) w.payload(seg.lmr.bytes.subarray(seg.offset, seg.offset + seg.length));
    }
  }

  // ---- incoming --------------------------------------------------------------------------

  /** The decoder's consumer for frames after the handshake: a sink, 'pause', or an error message. */
  onFrame(h: TcpFrameHeader): FrameSink | 'pause' {
    if ((h.flags & FrameFlag.ACK_VALID) !== 0) {
      const problem = this.acknowledge(h.ack);
      if (problem !== undefined) throw new ProtocolError(problem);
    }
    switch (h.type) {
      case FrameType.SEND:
        return this.onSend(h);
      case FrameType.RDMA_WRITE:
      case FrameType.RDMA_WRITE_IMM:
        return this.onWrite(h);
      case FrameType.READ_REQ:
        return this.onReadRequest(h);
      case FrameType.READ_RESP:
        return this.onReadResponse(h);
      case FrameType.NAK:
        return this.onNak(h);
      case FrameType.ACK:
        return DISCARD;
      default:
        throw new ProtocolError(`unexpected ${FrameType[h.type]} frame on an established connection`);
    }
  }

  /** A receive was posted or the recv EVD has room again: let a stalled stream go on. */
  unstall(): void {
    if (this.stall === undefined) return;
    this.stall = undefined;
    this.resumeInput();
  }

  get stalledOnRecv(): boolean {
    return this.stall === 'recv';
  }

  private checkSeq(h: TcpFrameHeader): void {
    if (h.seq !== this.expectedSeq) throw new ProtocolError(`request sequence ${h.seq} where ${this.expectedSeq} was due`);
  }

  private processed(seq: number): void {
    this.processedSeq = seq;
    this.expectedSeq = nextSeq(seq);
  }

  private owe(): void {
    this.ackOwed = true;
    this.scheduleAck();
  }

  private respond(seq: number, type: FrameType.READ_RESP | FrameType.NAK, status: number, bytes: Uint8Array | undefined): void {
    this.responses.push({ type, seq, status, bytes });
    this.scheduleFlush();
  }

  private onSend(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    if (this.host.peekRecv() === undefined) {
      this.stall = 'recv';
      return 'pause';
    }
    const recv = this.host.takeRecv()!;
    const seq = h.seq;
    const length = h.payloadLength;
    if (recv.length < length) {
      return {
        write() {},
        end: () => {
          this.host.completeRecv(recv, DtoStatus.LOCAL_LENGTH, 0);
          this.processed(seq);
          this.respond(seq, FrameType.NAK, NakStatus.REMOTE_LENGTH, undefined);
        },
      };
    }
    const writer = new IovWriter(recv.iov);
    return {
      write: (piece) => writer.write(piece),
      end: () => {
        this.host.completeRecv(recv, DtoStatus.SUCCESS, length);
        this.processed(seq);
        this.owe();
      },
    };
  }

  private onWrite(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    const withImmediate = h.type === FrameType.RDMA_WRITE_IMM;
    if (withImmediate && !this.host.recvEvdHasRoom()) {
      this.stall = 'evd';
      this.host.onRecvEvdRoom(() => this.unstall());
      return 'pause';
    }
    const seq = h.seq;
    const length = h.payloadLength;
    const grant = this.host.rmrTable.check(h.rmrContext, this.host.pz, h.targetOffset, length, MemAccess.REMOTE_WRITE);
    if (typeof grant === 'string') {
      // Refused before a byte is placed: the payload is read and dropped.
      return {
        write() {},
        end: () => {
          this.processed(seq);
          this.respond(seq, FrameType.NAK, nakStatusFromDatStatus(grant), undefined);
        },
      };
    }
    const { bytes } = grant;
    let at = grant.start;
    const immediate = h.aux;
    return {
      write: (piece) => {
        bytes.set(piece, at);
        at += piece.length;
      },
      end: () => {
        this.processed(seq);
        if (withImmediate) this.host.raiseImmediate(immediate, length);
        this.owe();
      },
    };
  }

  private onReadRequest(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    if (this.responses.size >= MAX_QUEUED_RESPONSES) {
      this.stall = 'responses';
      return 'pause';
    }
    const grant = this.host.rmrTable.check(h.rmrContext, this.host.pz, h.targetOffset, h.aux, MemAccess.REMOTE_READ);
    this.processed(h.seq);
    if (typeof grant === 'string') this.respond(h.seq, FrameType.NAK, nakStatusFromDatStatus(grant), undefined);
    else this.respond(h.seq, FrameType.READ_RESP, 0, grant.bytes.subarray(grant.start, grant.start + h.aux));
    return DISCARD;
  }

  private onReadResponse(h: TcpFrameHeader): FrameSink {
    const problem = this.completeBefore(h.seq);
    if (problem !== undefined) throw new ProtocolError(problem);
    const head = this.host.peekRequest();
    if (head === undefined || head.seq !== h.seq || head.op !== 'rdma-read' || head.length !== h.payloadLength) {
      throw new ProtocolError(`read response ${h.seq} of ${h.payloadLength} bytes matches no outstanding read`);
    }
    const writer = new IovWriter(head.iov);
    return {
      write: (piece) => writer.write(piece),
      end: () => this.host.completeRequest(DtoStatus.SUCCESS),
    };
  }

  private onNak(h: TcpFrameHeader): FrameSink {
    const problem = this.completeBefore(h.seq);
    if (problem !== undefined) throw new ProtocolError(problem);
    const head = this.host.peekRequest();
    if (head === undefined || head.seq !== h.seq) throw new ProtocolError(`NAK ${h.seq} matches no outstanding request`);
    const { status, reason } = nakStatusToCompletion(h.status);
    this.host.completeRequest(status, reason);
    return DISCARD;
  }

  /** Cumulative ack: every request up to `ack` succeeded at the target. */
  private acknowledge(ack: number): string | undefined {
    if (this.lastSentSeq === 0 || seqBefore(this.lastSentSeq, ack)) return `acknowledgement ${ack} of a request never sent`;
    for (let head = this.host.peekRequest(); head !== undefined && !seqBefore(ack, head.seq); head = this.host.peekRequest()) {
      if (head.op === 'rdma-read') return `acknowledgement ${ack} covers read ${head.seq}, which has no response yet`;
      this.host.completeRequest(DtoStatus.SUCCESS);
    }
    return undefined;
  }

  /** A NAK or read response for `seq` acknowledges every request before it. */
  private completeBefore(seq: number): string | undefined {
    if (this.lastSentSeq === 0 || seqBefore(this.lastSentSeq, seq)) return `response ${seq} to a request never sent`;
    for (let head = this.host.peekRequest(); head !== undefined && seqBefore(head.seq, seq); head = this.host.peekRequest()) {
      if (head.op === 'rdma-read') return `response ${seq} skips read ${head.seq}`;
      this.host.completeRequest(DtoStatus.SUCCESS);
    }
    return undefined;
  }
}
