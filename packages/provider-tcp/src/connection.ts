import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { FrameSink } from '@dapl/core/provider-kit';
import { DataPath, type DataPathHost } from './progress.js';
import { ProtocolError } from './protocol-error.js';
import {
  acceptProof,
  decodeAccept,
  decodeChallenge,
  decodeHello,
  decodeReject,
  encodeAccept,
  encodeChallenge,
  encodeFrame,
  encodeHello,
  encodeReject,
  FrameType,
  helloProof,
  newNonce,
  rejectProof,
  TcpFrameDecoder,
  verifyAcceptProof,
  verifyHelloProof,
  verifyRejectProof,
  type Hello,
  type TcpFrameHeader,
} from './wire/index.js';
import { isFrameError, PayloadCollector } from '@dapl/core/provider-kit';
import type { InputTarget, ReadBuffer } from './read-buffer.js';

/** Where a connection is in its life. */
export enum Phase {
  ClientAwaitChallenge = 'client-await-challenge',
  ClientAwaitAnswer = 'client-await-answer',
  ServerAwaitHello = 'server-await-hello',
  /** Authenticated; the consumer has the connection request and has not answered yet. */
  ServerAwaitConsumer = 'server-await-consumer',
  Open = 'open',
  Closed = 'closed',
}

/** How the socket's owner learns what happened. */
export interface ConnectionEvents {
  /** Client: the server accepted (its private data); server: never called. */
  accepted?(privateData: Uint8Array): void;
  /** Client: the server rejected. */
  rejected?(privateData: Uint8Array): void;
  /** Server: an authenticated HELLO. */
  hello?(hello: Hello): void;
  /** The socket is gone; `graceful` when the peer sent DISCONNECT. Called once. */
  closed(graceful: boolean, reason: string): void;
}

/** Input held for a consumer that refuses a frame before reading stops (about what Node's stream buffer held). */
const HELD_INPUT_BYTES = 64 * 1024;

export interface ConnectionOptions {
  readonly jobKey: Uint8Array;
  readonly maxPayload: number;
  readonly copyThreshold: number;
  readonly logger: Logger;
  /** Told of every chunk of input and of every write of requests or responses (the IA's busy poller, when `tcp.pollUs` is set). */
  readonly onTraffic: (() => void) | undefined;
  /** How often a connection whose input is paused writes a probe (ms; 0: never). See `input`. */
  readonly probeMs: number;
}


/**
 * One TCP connection: the handshake (challenge / HMAC proofs of the job key / accept or
 * reject, all before the consumer hears of the peer), then the data path. One decoder serves
 * the whole life of the socket, so bytes that follow the handshake in the same read are kept.
 */
export class TcpConnection implements InputTarget {
  private phase: Phase;
  private readonly decoder: TcpFrameDecoder;
  private data: DataPath | undefined;
  private serverNonce: Uint8Array | undefined;
  private clientNonce: Uint8Array | undefined;
  private buffered = 0;
  private gracefulClose = false;

  constructor(
    readonly socket: Socket,
    role: 'client' | 'server',
    private readonly options: ConnectionOptions,
    private events: ConnectionEvents,
    private readonly adjustBuffered: (delta: number) => void,
    reader?: ReadBuffer,
  ) {
    this.phase = role === 'client' ? Phase.ClientAwaitChallenge : Phase.ServerAwaitHello;
    this.decoder = new TcpFrameDecoder(
      { maxPayload: options.maxPayload },
      { onFrame: (h) => this.onFrame(h), onError: (message) => this.fail(`protocol error: ${message}`) },
      { reuseHeader: true },
    );
    socket.setNoDelay(true);
    // With a read buffer the socket was created with it (`onread`); else Node's 'data' events
    // (resumed: an accepted socket that could not be adopted is still paused from the listener).
    if (reader !== undefined) {
      reader.target = this;
    } else {
      socket.on('data', (chunk: Buffer) => this.input(chunk));
      socket.resume();
    }
    socket.on('end', () => this.onEnd());
    socket.on('error', (err) => this.fail(err.message));
    socket.on('close', () => this.finish(this.gracefulClose, 'the connection closed'));
    if (role === 'server') {
      this.serverNonce = newNonce();
      socket.write(encodeFrame({ type: FrameType.CHALLENGE }, encodeChallenge(this.serverNonce)));
    }
  }

  get currentPhase(): Phase {
    return this.phase;
  }

  /** Client: after connect, the HELLO goes out once the CHALLENGE arrived. */
  private helloFields: { connQual: number; address: string; privateData: Uint8Array } | undefined;

  setHello(connQual: number, address: string, privateData: Uint8Array): void {
    this.helloFields = { connQual, address, privateData };
  }

  /** Swap who hears about the connection (the CR hands it to the accepting endpoint). */
  rebind(events: ConnectionEvents): void {
    this.events = events;
  }

  /** Server: the consumer accepted; the data path starts now. */
  accept(privateData: Uint8Array, host: DataPathHost): DataPath {
    const proof = acceptProof(this.options.jobKey, this.serverNonce!, this.clientNonce!);
    this.socket.write(encodeFrame({ type: FrameType.ACCEPT }, encodeAccept({ proof, privateData })));
    return this.open(host);
  }

  /** Server: the consumer rejected. */
  reject(privateData: Uint8Array): void {
    const proof = rejectProof(this.options.jobKey, this.serverNonce!, this.clientNonce!);
    this.socket.end(encodeFrame({ type: FrameType.REJECT }, encodeReject({ proof, privateData })));
    this.phase = Phase.Closed;
  }

  /** Client: the data path starts once ACCEPT arrived (the endpoint calls this from `accepted`). */
  open(host: DataPathHost): DataPath {
    this.phase = Phase.Open;
    this.data = new DataPath(this.socket, host, this.options.copyThreshold, () => this.resumeInput(), this.options.probeMs, this.options.onTraffic);
    return this.data;
  }

  /** Drop the socket now (abrupt disconnect, free, IA close, failed handshake). */
  destroy(): void {
    this.data?.stop();
    this.socket.destroy();
  }

  /**
   * Input from the socket. While the consumer refuses a frame the decoder keeps the rest; reading
   * goes on (so a peer that leaves is still seen) until `HELD_INPUT_BYTES` are held, then the
   * socket pauses until `resumeInput`. A paused socket would not see the peer go (its FIN waits
   * behind the bytes we do not read), so while paused it writes a probe every `probeMs`: a write to
   * a peer that is gone fails (its host answers with RST), and the failure closes the connection.
   */
  input(chunk: Uint8Array): boolean {
    this.options.onTraffic?.();
    try {
      this.decoder.push(chunk);
    } catch (error) {
      this.fail(error instanceof ProtocolError ? `protocol error: ${error.message}` : `internal error: ${String(error)}`);
      return false;
    }
    this.trackBuffered();
    if (!this.decoder.paused || this.decoder.retainedBytes < HELD_INPUT_BYTES) return true;
    if (!this.socket.isPaused()) {
      this.socket.pause();
      this.data?.startProbing();
    }
    return false;
  }

  /** The rest of a large payload's destination, for the next read to go straight into (`ReadBuffer`). */
  directRoom(): Uint8Array | undefined {
    if (this.phase !== Phase.Open || this.decoder.paused) return undefined;
    return this.data?.directRoom();
  }

  get holdsInput(): boolean {
    return this.decoder.paused;
  }

  private resumeInput(): void {
    try {
      this.decoder.resume();
    } catch (error) {
      this.fail(error instanceof ProtocolError ? `protocol error: ${error.message}` : `internal error: ${String(error)}`);
      return;
    }
    if (!this.decoder.paused && this.socket.isPaused() && !this.socket.destroyed) {
      this.data?.stopProbing();
      this.socket.resume();
    }
    this.trackBuffered();
  }

  /** Bytes held for the consumer: the decoder's retained input plus what Node read ahead ('data' events only). */
  private trackBuffered(): void {
    const now = this.decoder.retainedBytes + this.socket.readableLength;
    if (now !== this.buffered) {
      this.adjustBuffered(now - this.buffered);
      this.buffered = now;
    }
  }

  private onEnd(): void {
    this.decoder.end();
    if (this.phase === Phase.Open && !this.socket.destroyed) this.socket.end();
  }

  private onFrame(h: TcpFrameHeader): FrameSink | 'pause' {
    switch (this.phase) {
      case Phase.Open: {
        if (h.type === FrameType.DISCONNECT) {
          this.gracefulClose = true;
          this.data?.answerDisconnect();
          this.data?.stop();
          this.socket.end();
          return { write() {}, end() {} };
        }
        return this.data!.onFrame(h);
      }
      case Phase.ClientAwaitChallenge:
        return this.control(h, FrameType.CHALLENGE, (payload) => this.onChallenge(payload));
      case Phase.ClientAwaitAnswer:
        if (h.type === FrameType.REJECT) return this.control(h, FrameType.REJECT, (payload) => this.onReject(payload));
        return this.control(h, FrameType.ACCEPT, (payload) => this.onAccept(payload));
      case Phase.ServerAwaitHello:
        return this.control(h, FrameType.HELLO, (payload) => this.onHello(payload));
      case Phase.ServerAwaitConsumer:
        throw new ProtocolError(`${FrameType[h.type]} frame before the server answered the connection request`);
      case Phase.Closed:
        return { write() {}, end() {} };
    }
  }

  private control(h: TcpFrameHeader, expected: FrameType, handle: (payload: Uint8Array) => void): FrameSink {
    if (h.type !== expected) throw new ProtocolError(`${FrameType[h.type] ?? h.type} frame where ${FrameType[expected]} was due`);
    return new PayloadCollector(h.payloadLength, handle);
  }

  private onChallenge(payload: Uint8Array): void {
    const challenge = decodeChallenge(payload);
    if (isFrameError(challenge)) throw new ProtocolError(challenge.message);
    const hello = this.helloFields!;
    this.serverNonce = challenge.serverNonce;
    this.clientNonce = newNonce();
    const proof = helloProof(this.options.jobKey, this.serverNonce, this.clientNonce);
    this.socket.write(encodeFrame({ type: FrameType.HELLO }, encodeHello({ clientNonce: this.clientNonce, proof, ...hello })));
    this.phase = Phase.ClientAwaitAnswer;
  }

  private onAccept(payload: Uint8Array): void {
    const accept = decodeAccept(payload);
    if (isFrameError(accept)) throw new ProtocolError(accept.message);
    if (!verifyAcceptProof(this.options.jobKey, this.serverNonce!, this.clientNonce!, accept.proof)) {
      throw new ProtocolError('the server could not prove it holds the job key');
    }
    this.events.accepted?.(accept.privateData);
  }

  private onReject(payload: Uint8Array): void {
    const reject = decodeReject(payload);
    if (isFrameError(reject)) throw new ProtocolError(reject.message);
    if (!verifyRejectProof(this.options.jobKey, this.serverNonce!, this.clientNonce!, reject.proof)) {
      throw new ProtocolError('the server could not prove it holds the job key (REJECT)');
    }
    this.phase = Phase.Closed;
    this.events.rejected?.(reject.privateData);
    this.socket.destroy();
  }

  private onHello(payload: Uint8Array): void {
    const hello = decodeHello(payload);
    if (isFrameError(hello)) throw new ProtocolError(hello.message);
    if (!verifyHelloProof(this.options.jobKey, this.serverNonce!, hello.clientNonce, hello.proof)) {
      // Not of this job: drop it without a word to the consumer (no CR event).
      this.options.logger.debug({ remote: this.socket.remoteAddress }, 'dropping a client that failed authentication');
      this.phase = Phase.Closed;
      this.socket.destroy();
      return;
    }
    this.clientNonce = hello.clientNonce;
    this.phase = Phase.ServerAwaitConsumer;
    this.events.hello?.(hello);
  }

  private fail(reason: string): void {
    this.options.logger.debug({ reason, phase: this.phase }, 'connection failed');
    this.finish(false, reason);
    this.socket.destroy();
  }

  private finish(graceful: boolean, reason: string): void {
    if (this.phase === Phase.Closed && this.events === DEAD) return;
    this.phase = Phase.Closed;
    this.data?.stop();
    if (this.buffered !== 0) {
      this.adjustBuffered(-this.buffered);
      this.buffered = 0;
    }
    const events = this.events;
    this.events = DEAD;
    events.closed(graceful, reason);
  }
}

const DEAD: ConnectionEvents = { closed() {} };
