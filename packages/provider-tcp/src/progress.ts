import type { Socket } from 'node:net';
import type { DatStatus} from '@dapl/core';
import { DtoStatus, MemAccess } from '@dapl/core';
import type { DtoRequest, KitPz, PostedRecv, RmrTable } from '@dapl/core/provider-kit';
import { ReadResponseSink, RecvSink, RefusedSink, WriteSink, type DirectSink, type SinkPath } from './payload-sinks.js';
import { DIRECT_READ_BYTES } from './read-buffer.js';
import type { FrameSink } from '@dapl/core/provider-kit';
import { MAX_QUEUED_RESPONSES } from './attr.js';
import { ProtocolError } from './protocol-error.js';
import { RequestWriter } from './request-writer.js';
import { FrameFlag, FrameType, nakStatusFromDatStatus, nakStatusToCompletion, type TcpFrameHeader } from './wire/index.js';

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
export class DataPath implements SinkPath {
  /** What goes out, as frames, and the sequence state they carry. */
  private readonly out: RequestWriter;
  private expectedSeq = 1;
  private flushScheduled = false;
  /** Payload bytes submitted since the last flush; `flushBytes` of them leave at once (see submit). */
  private unflushedBytes = 0;
  /** A socket's worth: its high-water mark, read once (the socket's getter is not free per message). */
  private readonly flushBytes: number;
  /** Every byte of our requests up to this one is in the kernel (set by the flush that saw it so). */
  private inKernelSeq = 0;
  /** The newest request completed locally (0: none), so a later refusal of it is told apart. */
  private lastLocalSeq = 0;
  private blocked = false;
  private closing = false;
  /**
   * Our DISCONNECT and half-close are written (`ended`): nothing more can be. A request of the
   * peer's that arrives now can never be acknowledged, so its initiator flushes it; it is dropped
   * here too, unplaced, and the receive it would have taken is flushed at close.
   */
  private halfClosed = false;
  private closed = false;
  /** Writes a probe every `probeMs` while the connection's input is paused (`startProbing`). */
  private probeTimer: ReturnType<typeof setInterval> | undefined;
  /** Whether the frame being handled carries ACK_REQUEST (read by its sink at the end). */
  frameRequestsAck = false;
  /** Why incoming frames are paused, if they are. */
  private stall: 'recv' | 'evd' | 'responses' | undefined;
  // One sink of each kind, reused: a decoder streams one payload at a time.
  private readonly recvSink = new RecvSink(this);
  private readonly writeSink = new WriteSink(this);
  private readonly refusedSink = new RefusedSink(this);
  private readonly readResponseSink = new ReadResponseSink(this);
  /** The sink of the latest frame with a payload destination (its `room()` is empty once it ended). */
  private directSink: DirectSink | undefined;

  constructor(
    private readonly socket: Socket,
    readonly host: DataPathHost,
    copyThreshold: number,
    private readonly resumeInput: () => void,
    /** How often to probe while input is paused (ms; 0: never). */
    private readonly probeMs = 0,
    /** Told after a flush that wrote a request or a response (the IA's busy poller: a reply may follow). */
    private readonly onOutput?: () => void,
  ) {
    this.out = new RequestWriter(socket, copyThreshold);
    this.flushBytes = socket.writableHighWaterMark;
    socket.on('drain', () => {
      this.blocked = false;
      this.flush();
    });
  }

  // ---- outgoing --------------------------------------------------------------------------

  /**
   * Queue a request for the next flush. Once a socket's worth of payload (its high-water mark)
   * waits, it leaves now instead: coalescing has nothing left to gain, and a burst of large
   * posts (64 RDMA writes of 64 KiB) then starts streaming to the peer while the poster is still
   * posting the rest, rather than after its whole loop (2-5% more bandwidth at 64 KiB for MPI and
   * DAT alike in an in-process A/B; bench/RESULTS.md, session 13).
   */
  submit(request: DtoRequest): void {
    this.out.unsent.push(request);
    // A read request carries no payload of ours.
    if (request.op !== 'rdma-read') this.unflushedBytes += request.length;
    if (this.unflushedBytes >= this.flushBytes && !this.blocked) return this.flush();
    this.scheduleFlush();
  }

  /**
   * Write an ACK now, owed or not, to learn whether the connection is still there (the connection
   * calls this while its input is paused; a write to a peer that is gone fails). Not while a write
   * is pending: that one fails the same way.
   */
  probe(): void {
    this.out.probeDue = true;
    this.flush();
  }

  /** The connection paused its input: probe every `probeMs` until it resumes (`stopProbing`) or stops. */
  startProbing(): void {
    if (this.probeMs <= 0 || this.probeTimer !== undefined || this.closed) return;
    this.probeTimer = setInterval(() => this.probe(), this.probeMs);
    this.probeTimer.unref();
  }

  stopProbing(): void {
    if (this.probeTimer === undefined) return;
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
  }

  /** Graceful close: what is queued goes out, then DISCONNECT and a half-close. */
  close(): void {
    this.closing = true;
    this.scheduleFlush();
  }

  /** Stop for good (the socket is gone); queued requests are flushed by the endpoint. */
  stop(): void {
    this.closed = true;
    this.stopProbing();
    this.out.unsent.drain();
    this.out.responses.drain();
    // A receive taken for a SEND whose payload never finished is no longer on the endpoint's
    // queue: flush it here, first, as the oldest.
    const held = this.recvSink.abandon();
    if (held !== undefined) this.host.completeRecv(held, DtoStatus.FLUSHED, 0);
  }

  private readonly flushTask = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /**
   * Requests and responses go out at the end of the event loop's I/O phase (setImmediate), not
   * after each microtask turn: Node hands a stream's input to JS 64 KiB per callback, and what
   * the consumer posts from each callback's completions (the rdma device's FIN after every read
   * response, say) then leaves in one write instead of one system call per callback. An owed ACK
   * leaves at the same point, on whatever the consumer posted by then (a reply from its
   * continuation, an MPI acknowledgement and the receives posted after it), alone only if nothing
   * was: a lone ACK written from a microtask costs a system call (a loopback write wakes the peer,
   * tens of µs here) inside the consumer's own critical path, before its continuation runs.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flushTask);
  }

  /** Our DISCONNECT and half-close are written: nothing more goes out, the peer's new requests are dropped. */
  get ended(): boolean {
    return this.halfClosed;
  }

  private flush(): void {
    // writableEnded: our DISCONNECT went out (halfClosed), or the peer half-closed without one and
    // the connection ended our side.
    if (this.blocked || this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    this.unflushedBytes = 0;
    const out = this.out;
    const w = out.frames;
    w.begin();
    let wrote = out.responses.size > 0;
    out.writeResponses();
    if (out.responses.size === 0 && this.stall === 'responses') this.unstall();
    while (w.open && out.responses.size === 0) {
      const req = out.unsent.shift();
      if (req === undefined) break;
      out.writeRequest(req);
      wrote = true;
    }
    // Before our DISCONNECT every request of the peer's carried out here is acknowledged, asked or
    // not: after it nothing can be, and the peer would flush what we kept.
    if (((out.ackOwed && (out.ackRequested || this.closing)) || out.probeDue) && w.open && out.responses.size === 0) out.writeAck();
    if (this.closing && out.unsent.size === 0 && out.responses.size === 0 && w.open) {
      out.writeDisconnect();
      this.closing = false;
      this.halfClosed = true;
      w.end();
      this.socket.end();
      // A stalled frame would keep the input paused, and the peer's DISCONNECT unread, until the
      // close timer: let it go on, to be dropped.
      if (this.stall !== undefined) setImmediate(() => this.closed || this.unstall());
      return;
    }
    if (!w.end()) {
      this.blocked = true;
    }
    // What we sent may be answered soon: the wait for it starts now, not at our last input (a
    // large payload's write alone outlasts a polling window that began before it).
    if (wrote) this.onOutput?.();
    // Everything written is in the kernel now (Node holds nothing back): requests that asked for
    // local completion may complete, in post order, without waiting for the peer's acknowledgement.
    // Otherwise they wait for the drain, whose flush comes back here, or for the acknowledgement.
    if (out.localWritten && this.socket.writableLength === 0) {
      out.localWritten = false;
      // Captured now: a flush later in this task may write more that Node still holds.
      this.inKernelSeq = out.lastSentSeq;
      queueMicrotask(this.completeLocal);
    }
  }

  /**
   * The peer sent DISCONNECT: before our half-close, what it is owed goes — the responses to its
   * reads and NAKs, and the acknowledgement of every request of its carried out here (it completes
   * them with it) — but nothing new of ours. Written past the high-water mark if need be: `end()`
   * sends what Node holds before the FIN.
   */
  answerDisconnect(): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    const out = this.out;
    out.frames.begin();
    out.writeResponses(true);
    if (out.ackOwed) out.writeAck();
    out.frames.end();
  }

  /** Complete the oldest requests while they asked for local completion and have left in full. */
  private readonly completeLocal = (): void => {
    const written = this.inKernelSeq;
    // A read is never complete before its response: its data lands here.
    for (let head = this.host.peekRequest(); head !== undefined && head.localCompletion && head.op !== 'rdma-read' && !seqBefore(written, head.seq); head = this.host.peekRequest()) {
      this.lastLocalSeq = head.seq;
      this.host.completeRequest(DtoStatus.SUCCESS);
    }
  };

  // ---- incoming --------------------------------------------------------------------------

  /** The decoder's consumer for frames after the handshake: a sink, 'pause', or an error message. */
  onFrame(h: TcpFrameHeader): FrameSink | 'pause' {
    this.frameRequestsAck = (h.flags & FrameFlag.ACK_REQUEST) !== 0;
    if ((h.flags & FrameFlag.ACK_VALID) !== 0) {
      const problem = this.acknowledge(h.ack);
      if (problem !== undefined) throw new ProtocolError(problem);
    }
    // After our half-close only the peer's answers to our requests still count (see `ended`).
    if (this.halfClosed && h.type !== FrameType.NAK && h.type !== FrameType.READ_RESP) return DISCARD;
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

  /**
   * Where the next socket read may go: the rest of the payload being placed, when at least
   * `DIRECT_READ_BYTES` of it are still to come (the connection asks only while the decoder is
   * inside that payload with no input held, so the read yields nothing but that payload).
   */
  directRoom(): Uint8Array | undefined {
    const room = this.directSink?.room();
    return room !== undefined && room.length >= DIRECT_READ_BYTES ? room : undefined;
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

  /** @internal */
  processed(seq: number): void {
    this.out.processedSeq = seq;
    this.expectedSeq = nextSeq(seq);
  }

  /**
   * @internal A request was carried out: the next outgoing frame acknowledges it; a lone ACK
   * goes out only if the initiator asked for one (ACK_REQUEST) and no reply carried it.
   */
  owe(requested: boolean): void {
    const out = this.out;
    out.ackOwed = true;
    if (requested) out.ackRequested = true;
    if (out.ackRequested) this.scheduleFlush();
  }

  /** @internal */
  respond(seq: number, type: FrameType.READ_RESP | FrameType.NAK, status: number, bytes: Uint8Array | undefined): void {
    this.out.responses.push({ type, seq, status, bytes });
    this.scheduleFlush();
  }

  private onSend(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    if (this.host.peekRecv() === undefined) {
      this.stall = 'recv';
      return 'pause';
    }
    const recv = this.host.takeRecv()!;
    this.directSink = this.recvSink;
    return this.recvSink.start(recv, h.seq, h.payloadLength);
  }

  private onWrite(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    const withImmediate = h.type === FrameType.RDMA_WRITE_IMM;
    if (withImmediate && !this.host.recvEvdHasRoom()) {
      this.stall = 'evd';
      this.host.onRecvEvdRoom(() => this.unstall());
      return 'pause';
    }
    const grant = this.host.rmrTable.check(h.rmrContext, this.host.pz, h.targetOffset, h.payloadLength, MemAccess.REMOTE_WRITE);
    // A refused write is read and dropped: not a byte is placed.
    if (typeof grant === 'string') return this.refusedSink.start(h.seq, nakStatusFromDatStatus(grant));
    this.directSink = this.writeSink;
    return this.writeSink.start(grant.bytes, grant.start, h.seq, h.payloadLength, withImmediate, h.aux);
  }

  private onReadRequest(h: TcpFrameHeader): FrameSink | 'pause' {
    this.checkSeq(h);
    if (this.out.responses.size >= MAX_QUEUED_RESPONSES) {
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
    this.directSink = this.readResponseSink;
    return this.readResponseSink.start(head.iov, h.payloadLength);
  }

  private onNak(h: TcpFrameHeader): FrameSink {
    if (this.lastLocalSeq !== 0 && !seqBefore(this.lastLocalSeq, h.seq)) {
      const { status, reason } = nakStatusToCompletion(h.status);
      throw new ProtocolError(`the peer refused request ${h.seq} (${status}${reason === undefined ? '' : `, ${reason}`}) after it had completed locally`);
    }
    const problem = this.completeBefore(h.seq);
    if (problem !== undefined) throw new ProtocolError(problem);
    const head = this.host.peekRequest();
    if (head === undefined || head.seq !== h.seq) throw new ProtocolError(`NAK ${h.seq} matches no outstanding request`);
    const { status, reason } = nakStatusToCompletion(h.status);
    this.host.completeRequest(status, reason);
    this.completeLocal();
    return DISCARD;
  }

  /** @internal A read's response has landed and completed it: local writes held behind it may go now. */
  readCompleted(): void {
    this.host.completeRequest(DtoStatus.SUCCESS);
    this.completeLocal();
  }

  /** Cumulative ack: every request up to `ack` succeeded at the target. */
  private acknowledge(ack: number): string | undefined {
    if (this.out.lastSentSeq === 0 || seqBefore(this.out.lastSentSeq, ack)) return `acknowledgement ${ack} of a request never sent`;
    for (let head = this.host.peekRequest(); head !== undefined && !seqBefore(ack, head.seq); head = this.host.peekRequest()) {
      if (head.op === 'rdma-read') return `acknowledgement ${ack} covers read ${head.seq}, which has no response yet`;
      this.host.completeRequest(DtoStatus.SUCCESS);
    }
    return undefined;
  }

  /** A NAK or read response for `seq` acknowledges every request before it. */
  private completeBefore(seq: number): string | undefined {
    if (this.out.lastSentSeq === 0 || seqBefore(this.out.lastSentSeq, seq)) return `response ${seq} to a request never sent`;
    for (let head = this.host.peekRequest(); head !== undefined && seqBefore(head.seq, seq); head = this.host.peekRequest()) {
      if (head.op === 'rdma-read') return `response ${seq} skips read ${head.seq}`;
      this.host.completeRequest(DtoStatus.SUCCESS);
    }
    return undefined;
  }
}
