import { DtoStatus, EpState, RegistrationCache, type Clock, type Connections, type DtoCompletionEvent, type DatEvent, type Endpoint } from '@dapl/core';
import { drainWith, pollEvds } from '../poll-evds.js';
import type { Channel, ControlHandler, ControlPacket, DataSink, KeptPacket } from './channel.js';
import { ControlKind, emptyPacket } from './channel.js';
import { FRAME_BYTES, FrameKind, frameCredits, frameKind, readPacket, writeFrame } from './frame.js';
import { makePacketBuffers, type PacketBuffer } from './packet-buffer.js';
import { PeerStream, type Outgoing } from './peer-stream.js';

export interface DatChannelOptions {
  /** Bytes of each receive buffer: the largest frame. */
  readonly packetSize: number;
  /** Receive buffers posted per peer: the credit window. */
  readonly buffers: number;
  /** Largest SHORT payload (a control frame is FRAME_BYTES plus this). */
  readonly shortLimit: number;
  /** Send buffers (frame headers and control packets) shared by all peers. */
  readonly sendBuffers: number;
  /** User buffers kept registered for data sent from them in place. */
  readonly registrationCache: number;
}

/** Our buffers are reusable once their bytes have left (tcp: the socket write), not a round trip later. */
const LOCAL_COMPLETION = { localCompletion: true } as const;

/**
 * The Channel Interface over DAT send/recv, as MP_Lite is over TCP sockets: one ordered stream of
 * frames per peer (control packets, the data behind them, credit returns) through receive buffers
 * pre-posted for that peer. No RDMA: it runs on every provider. Data goes from the user's memory in
 * place (registered through a cache) in frames of up to the packet size, behind a header; at the
 * receiver each frame is copied out of its receive buffer into where the data goes.
 *
 * Flow control: a sender spends a credit per frame and keeps the last one for a credit return;
 * re-posted buffers go back piggybacked on frames, or in a frame of their own once half the window
 * waits. A buffer a handler keeps (an unexpected message held for lack of room) keeps its credit, so
 * a sender that floods an absent receiver stops on its window.
 */
export class DatChannel implements Channel {
  readonly #options: DatChannelOptions;
  readonly #clock: Clock;
  readonly #streams: (PeerStream | undefined)[] = [];
  readonly #dataPerFrame: number;
  readonly #inPacket = emptyPacket();
  readonly #waitingForBuffers = new Set<PeerStream>();
  #connections: Connections | undefined;
  #sendBuffers: PacketBuffer[] = [];
  #cache: RegistrationCache | undefined;
  #handler: ControlHandler | undefined;
  #lost: ((peer: number, error: Error) => void) | undefined;
  /** Control packets read with `recvAnyControl` (no handler set), and those waiting for one. */
  readonly #queued: { packet: ControlPacket; from: number }[] = [];
  readonly #readers: ((next: { packet: ControlPacket; from: number }) => void)[] = [];
  #closed = false;
  readonly counts = { framesSent: 0, creditFrames: 0, creditStalls: 0 };

  constructor(options: DatChannelOptions, clock: Clock) {
    this.#options = options;
    this.#clock = clock;
    this.#dataPerFrame = options.packetSize - FRAME_BYTES;
  }

  /** Connections' `prepare` hook: the peer's receive buffers, posted before the endpoint connects. */
  readonly prepare = (ep: Endpoint, peer: number): void => {
    this.#stream(peer);
    const { buffers, packetSize } = this.#options;
    for (const buffer of makePacketBuffers(ep.pz, buffers, packetSize)) {
      buffer.ep = ep;
      buffer.from = peer;
      ep.postRecv(buffer.post(packetSize), buffer);
    }
  };

  /** Send buffers and progress: completions are handled as the EVDs notify. */
  attach(connections: Connections): void {
    this.#connections = connections;
    this.#cache = new RegistrationCache(connections.pz, this.#options.registrationCache);
    this.#sendBuffers = makePacketBuffers(connections.pz, this.#options.sendBuffers, FRAME_BYTES + this.#options.shortLimit);
    connections.evds.recv.setNotify(drainWith(this.#onRecvEvent));
    connections.evds.request.setNotify(drainWith(this.#onRequestEvent));
  }

  // ---- the five functions and their forms ------------------------------------------------------

  controlMsgAvail(): boolean {
    return this.#queued.length > 0;
  }

  recvAnyControl(): Promise<{ packet: ControlPacket; from: number }> {
    const next = this.#queued.shift();
    if (next !== undefined) return Promise.resolve(next);
    return new Promise((resolve) => this.#readers.push(resolve));
  }

  sendControl(packet: ControlPacket, dest: number): Promise<void> {
    return new Promise((resolve, reject) => this.isendControl(packet, dest, (error) => (error === undefined ? resolve() : reject(error))));
  }

  recvFromChannel(buf: Uint8Array, from: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.irecvFromChannel(buf.length, from, {
        accept: (piece, at) => {
          buf.set(piece, at);
          this.#clock.chargeCopy(piece.length);
          return false;
        },
        done: resolve,
        failed: reject,
      });
    });
  }

  sendChannel(buf: Uint8Array, dest: number): Promise<void> {
    return new Promise((resolve, reject) => this.isendChannel(buf, dest, (error) => (error === undefined ? resolve() : reject(error))));
  }

  isendControl(packet: ControlPacket, dest: number, onDone?: (error?: Error) => void): void {
    const stream = this.#stream(dest);
    if (stream.failed !== undefined) return onDone?.(stream.failed);
    const item = { type: 'control' as const, packet: { ...packet }, onDone, posted: false };
    this.#enqueue(stream, item);
    // SHORT data is copied into the frame as it goes; if it must wait, it is copied now: the caller may reuse its buffer at once.
    const copy = item.packet;
    if (!item.posted && copy.kind === ControlKind.SHORT && copy.payload !== undefined) {
      copy.payload = copy.payload.slice();
      this.#clock.chargeCopy(copy.payload.length);
    }
  }

  isendChannel(buf: Uint8Array, dest: number, onDone: (error?: Error) => void): void {
    const stream = this.#stream(dest);
    if (stream.failed !== undefined) return onDone(stream.failed);
    if (buf.length === 0) return onDone();
    this.#enqueue(stream, { type: 'data', bytes: buf, sent: 0, onDone });
  }

  irecvFromChannel(length: number, from: number, sink: DataSink): void {
    const stream = this.#stream(from);
    if (stream.failed !== undefined) return sink.failed(stream.failed);
    if (length === 0) return sink.done();
    stream.incoming.push({ length, received: 0, sink });
    // Data that arrived before this call (the blocking forms read the packet first, then the data).
    while (stream.early.length > 0 && stream.incoming.size > 0) {
      const frame = stream.early.shift()!;
      stream.kept--;
      this.#onData(stream, frame.buffer as PacketBuffer, frame.length);
    }
  }

  setControlHandler(handler: ControlHandler | undefined): void {
    this.#handler = handler;
  }

  release(buffer: KeptPacket): void {
    const b = buffer as PacketBuffer;
    const stream = this.#streams[b.from];
    if (stream !== undefined) stream.kept--;
    this.#repost(b);
  }

  onPeerLost(handler: (peer: number, error: Error) => void): void {
    this.#lost = handler;
  }

  /** Whether frames to `peer` wait for credits or the connection (for tools). */
  backlog(peer: number): number {
    return this.#streams[peer]?.outgoing.size ?? 0;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const evds = this.#connections?.evds;
    for (const evd of evds === undefined ? [] : [evds.recv, evds.request]) if (!evd.freed) evd.setNotify(undefined);
    this.#cache?.close();
  }

  // ---- sending -------------------------------------------------------------------------------

  #enqueue(stream: PeerStream, item: Outgoing): void {
    stream.outgoing.push(item);
    if (stream.outgoing.size === 1) this.#pump(stream);
  }

  /** Send what the credits, the connection and the free send buffers allow, in order. */
  #pump(stream: PeerStream): void {
    if (stream.failed !== undefined || this.#closed) return;
    if (!stream.connected) return this.#connect(stream);
    const ep = stream.sendEp!;
    if (ep.state !== EpState.CONNECTED) return;
    while (stream.outgoing.size > 0) {
      // The last credit is kept for a credit return: two streams out of credits could not tell each other.
      if (stream.credits < 2) {
        this.counts.creditStalls++;
        return;
      }
      const buffer = this.#sendBuffers.pop();
      if (buffer === undefined) {
        this.#waitingForBuffers.add(stream);
        return;
      }
      stream.credits--;
      const returned = stream.pendingReturn;
      stream.pendingReturn = 0;
      const item = stream.outgoing.peek()!;
      this.counts.framesSent++;
      if (item.type === 'control') {
        stream.outgoing.shift();
        item.posted = true;
        const packet = item.packet;
        writeFrame(buffer.view, FrameKind.CONTROL, returned, packet);
        let length = FRAME_BYTES;
        if (packet.kind === ControlKind.SHORT && packet.payload !== undefined) {
          buffer.bytes.set(packet.payload, FRAME_BYTES);
          this.#clock.chargeCopy(packet.payload.length);
          length += packet.payload.length;
        }
        buffer.onSent = item.onDone;
        ep.postSend(buffer.post(length), buffer, LOCAL_COMPLETION);
        continue;
      }
      const n = Math.min(this.#dataPerFrame, item.bytes.length - item.sent);
      const pinned = this.#cache!.pin(item.bytes);
      writeFrame(buffer.view, FrameKind.DATA, returned, undefined);
      buffer.pinned = pinned;
      const at = item.sent;
      item.sent += n;
      if (item.sent === item.bytes.length) {
        stream.outgoing.shift();
        buffer.onSent = item.onDone;
      }
      ep.postSend(buffer.postWith(FRAME_BYTES, pinned.lmr, item.bytes, at, n), buffer, LOCAL_COMPLETION);
    }
  }

  /** A frame of nothing but credits: it may take the last credit (the peer re-posts it at once). */
  #returnCredits(stream: PeerStream): void {
    if (stream.pendingReturn < Math.max(1, stream.window >> 1)) return;
    if (stream.outgoing.size > 0 && stream.credits >= 2) return this.#pump(stream);
    if (stream.credits < 1 || stream.failed !== undefined || this.#closed) return;
    if (!stream.connected) return this.#connect(stream);
    const ep = stream.sendEp!;
    if (ep.state !== EpState.CONNECTED) return;
    const buffer = this.#sendBuffers.pop();
    if (buffer === undefined) {
      this.#waitingForBuffers.add(stream);
      return;
    }
    stream.credits--;
    writeFrame(buffer.view, FrameKind.CREDIT, stream.pendingReturn, undefined);
    stream.pendingReturn = 0;
    this.counts.creditFrames++;
    ep.postSend(buffer.post(FRAME_BYTES), buffer, LOCAL_COMPLETION);
  }

  #connect(stream: PeerStream): void {
    if (stream.connecting || this.#connections === undefined) return;
    stream.connecting = true;
    this.#connections.endpoint(stream.peer).then(
      (ep) => {
        stream.connecting = false;
        stream.sendEp = ep;
        this.#pump(stream);
        this.#returnCredits(stream);
      },
      (error: unknown) => {
        stream.connecting = false;
        this.#fail(stream, new Error(`cannot connect to rank ${stream.peer}: ${String(error)}`, { cause: error }));
      },
    );
  }

  /** Both EVDs dequeued now (Device.poll). */
  poll(): void {
    const evds = this.#connections?.evds;
    if (evds === undefined) return;
    pollEvds(evds.recv, evds.request, this.#onRecvEvent, this.#onRequestEvent);
  }

  readonly #onRequestEvent = (event: DatEvent): void => {
    if (event.type === 'dto-completion' && event.op === 'send') this.#onSent(event);
  };

  #onSent(event: DtoCompletionEvent): void {
    const buffer = event.cookie as PacketBuffer;
    const onSent = buffer.onSent;
    buffer.onSent = undefined;
    if (buffer.pinned !== undefined) this.#cache!.unpin(buffer.pinned);
    buffer.pinned = undefined;
    this.#sendBuffers.push(buffer);
    if (event.status !== DtoStatus.SUCCESS) {
      const error = transportError(event);
      const peer = this.#connections?.peerOf(event.ep);
      if (peer !== undefined) this.#fail(this.#stream(peer), error);
      onSent?.(error);
    } else {
      onSent?.();
    }
    if (this.#waitingForBuffers.size > 0) {
      const waiting = [...this.#waitingForBuffers];
      this.#waitingForBuffers.clear();
      for (const stream of waiting) {
        this.#pump(stream);
        this.#returnCredits(stream);
      }
    }
  }

  // ---- receiving -----------------------------------------------------------------------------

  readonly #onRecvEvent = (event: DatEvent): void => {
    if (event.type === 'dto-completion' && event.op === 'recv') this.#onFrame(event);
  };

  #onFrame(event: DtoCompletionEvent): void {
    const buffer = event.cookie as PacketBuffer;
    const stream = this.#stream(buffer.from);
    if (event.status !== DtoStatus.SUCCESS) {
      if (event.status !== DtoStatus.FLUSHED) this.#fail(stream, transportError(event));
      else if (!this.#closed) this.#fail(stream, new Error(`the connection to rank ${stream.peer} was lost (${event.ep.state})`));
      return;
    }
    const view = buffer.view;
    const returned = frameCredits(view);
    if (returned > 0) {
      const stalled = stream.credits < 2;
      stream.credits += returned;
      if (stalled) {
        this.#pump(stream);
        // Our own returns may have waited for a credit to go in.
        this.#returnCredits(stream);
      }
    }
    switch (frameKind(view)) {
      case FrameKind.CREDIT:
        return this.#repost(buffer);
      case FrameKind.CONTROL:
        return this.#onControl(stream, buffer, event.transferredLength);
      case FrameKind.DATA:
        return this.#onData(stream, buffer, event.transferredLength - FRAME_BYTES);
      default:
        this.#repost(buffer);
        return this.#fail(stream, new Error(`a frame from rank ${stream.peer} has an unknown kind ${frameKind(view)}`));
    }
  }

  #onControl(stream: PeerStream, buffer: PacketBuffer, length: number): void {
    const packet = this.#inPacket;
    readPacket(buffer.view, packet);
    packet.payload = packet.kind === ControlKind.SHORT ? buffer.bytes.subarray(FRAME_BYTES, length) : undefined;
    const handler = this.#handler;
    if (handler === undefined) {
      const copy = { ...packet, payload: packet.payload?.slice() };
      this.#repost(buffer);
      const reader = this.#readers.shift();
      if (reader !== undefined) reader({ packet: copy, from: stream.peer });
      else this.#queued.push({ packet: copy, from: stream.peer });
      return;
    }
    if (handler(packet, stream.peer, buffer)) stream.kept++;
    else this.#repost(buffer);
  }

  #onData(stream: PeerStream, buffer: PacketBuffer, length: number): void {
    const incoming = stream.incoming.peek();
    if (incoming === undefined && this.#handler === undefined) {
      // Read with the blocking forms: it waits, in its buffer, for its recvFromChannel.
      stream.early.push({ buffer, length });
      stream.kept++;
      return;
    }
    if (incoming === undefined) {
      this.#repost(buffer);
      return this.#fail(stream, new Error(`rank ${stream.peer} sent ${length} bytes of data that no control packet announced`));
    }
    const piece = buffer.bytes.subarray(FRAME_BYTES, FRAME_BYTES + length);
    const at = incoming.received;
    incoming.received += length;
    if (incoming.sink.accept(piece, at, buffer)) stream.kept++;
    else this.#repost(buffer);
    if (incoming.received >= incoming.length) {
      stream.incoming.shift();
      incoming.sink.done();
    }
  }

  /** A receive buffer back to its endpoint, and its credit on the way back to the peer. */
  #repost(buffer: PacketBuffer): void {
    const ep = buffer.ep!;
    if (this.#closed || ep.state !== EpState.CONNECTED) return;
    ep.postRecv(buffer.post(this.#options.packetSize), buffer);
    const stream = this.#stream(buffer.from);
    stream.pendingReturn++;
    this.#returnCredits(stream);
  }

  // ---- failures ------------------------------------------------------------------------------

  #fail(stream: PeerStream, error: Error): void {
    if (stream.failed !== undefined) return;
    stream.failed = error;
    for (const item of stream.outgoing.drain()) item.onDone?.(error);
    for (let incoming = stream.incoming.shift(); incoming !== undefined; incoming = stream.incoming.shift()) incoming.sink.failed(error);
    this.#lost?.(stream.peer, error);
  }

  #stream(peer: number): PeerStream {
    return (this.#streams[peer] ??= new PeerStream(peer, this.#options.buffers));
  }
}

function transportError(event: DtoCompletionEvent): Error {
  return new Error(`${event.op} completed with ${event.status}${event.reason === undefined ? '' : ` (${event.reason})`}`);
}
