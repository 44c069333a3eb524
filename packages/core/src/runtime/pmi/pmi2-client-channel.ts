/**
 * The client's side of a PMI-2 conversation over one stream. It opens with one unframed PMI-1-style
 * line (`cmd=init pmi_version=2 pmi_subversion=0`, which Slurm requires before any frame), then speaks
 * frames. Requests are serialised: one is on the wire at a time, the rest wait in a FIFO, since an
 * unknown command gets no reply at all (Slurm) and replies carry no id. Anything unexpected (a malformed frame, a reply nobody asked
 * for, the wrong `cmd`, the stream closing, a timeout) fails the channel: every pending and later
 * request rejects with a DatError naming its command.
 */
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { pmiMessageText } from './replies.js';
import { endPmiStream, writeFlushed } from './pmi-stream.js';
import { formatPmi2Command, parsePmi2Payload, Pmi2FrameReader, PMI2_REPLY_OF, type Pmi2FieldsInput } from './pmi2-wire.js';
import { formatPmiLine, isPmiWireError, parsePmiLine, quote, type PmiMessage } from './wire.js';

interface PendingRequest {
  readonly command: string;
  readonly expected: string;
  readonly wire: string;
  readonly timeoutMs: number | undefined;
  readonly resolve: (reply: PmiMessage) => void;
  readonly reject: (error: DatError) => void;
  timer: NodeJS.Timeout | undefined;
}

/** The init line's reply is short; a longer "line" is not a PMI server. */
const MAX_INIT_LINE_BYTES = 1024;

export class Pmi2ClientChannel {
  readonly #stream: Duplex;
  readonly #frames = new Pmi2FrameReader();
  readonly #logger: Logger | undefined;
  /** Bytes of the init reply line until its newline; undefined once frames are read. */
  #initLine: Buffer[] | undefined;
  #initBytes = 0;
  #pending: PendingRequest | undefined;
  readonly #queue: PendingRequest[] = [];
  #failure: DatError | undefined;
  #closing = false;

  constructor(stream: Duplex, logger?: Logger) {
    this.#stream = stream;
    this.#logger = logger;
    stream.on('data', (chunk: Uint8Array | string) => this.#onData(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk)));
    stream.on('end', () => this.#onClosed());
    stream.on('close', () => this.#onClosed());
    stream.on('error', (error: Error) => this.#fail(DatStatus.CONNECTION_BROKEN, `the PMI-2 connection failed: ${error.message}`));
    this.#keepAlive(false);
  }

  get failure(): string | undefined {
    return this.#failure?.message;
  }

  /** Sends the unframed `cmd=init` line and resolves with its (PMI-1 style) reply. */
  init(timeoutMs: number | undefined): Promise<PmiMessage> {
    this.#initLine = [];
    return this.#send('init', 'response_to_init', formatPmiLine('init', { pmi_version: 2, pmi_subversion: 0 }), timeoutMs);
  }

  /** Sends one framed command and resolves with its reply (whose `cmd` is checked). */
  request(command: string, fields: Pmi2FieldsInput, timeoutMs: number | undefined): Promise<PmiMessage> {
    let frame: string;
    try {
      frame = formatPmi2Command(command, fields);
    } catch (error) {
      return Promise.reject(error);
    }
    const expected = PMI2_REPLY_OF[command];
    if (expected === undefined) return Promise.reject(new DatError(DatStatus.INVALID_PARAMETER, `PMI-2 ${command} has no reply: use sendNow`, { argument: 'command' }));
    return this.#send(command, expected, frame, timeoutMs);
  }

  /** Writes a command that has no reply (abort); resolves once flushed (or after a second). */
  sendNow(command: string, fields: Pmi2FieldsInput): Promise<void> {
    const frame = formatPmi2Command(command, fields);
    if (this.#failure !== undefined || this.#stream.destroyed || !this.#stream.writable) return Promise.resolve();
    this.#trace('>', frame);
    return writeFlushed(this.#stream, frame);
  }

  /** Fails the channel from outside (a reply whose content is malformed); returns the error for the caller. */
  fail(command: string, reason: string, status: DatStatus = DatStatus.INTERNAL_ERROR): DatError {
    this.#fail(status, reason);
    return new DatError(status, `PMI-2 ${command}: ${reason}`);
  }

  /** Ends the conversation normally (after finalize-response). */
  async close(): Promise<void> {
    this.#closing = true;
    await endPmiStream(this.#stream);
  }

  #send(command: string, expected: string, wire: string, timeoutMs: number | undefined): Promise<PmiMessage> {
    if (this.#failure !== undefined) return Promise.reject(new DatError(this.#failure.status, `PMI-2 ${command}: the connection failed earlier: ${this.#failure.message}`));
    if (this.#closing) return Promise.reject(new DatError(DatStatus.INVALID_STATE, `PMI-2 ${command}: the connection is being closed`));
    return new Promise<PmiMessage>((resolve, reject) => {
      this.#queue.push({ command, expected, wire, timeoutMs, resolve, reject, timer: undefined });
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#pending !== undefined || this.#failure !== undefined) return;
    const request = this.#queue.shift();
    if (request === undefined) {
      this.#keepAlive(false);
      return;
    }
    if (request.timeoutMs !== undefined) {
      request.timer = setTimeout(() => this.#fail(DatStatus.TIMEOUT_EXPIRED, `no reply to ${request.command} from the PMI-2 server within ${request.timeoutMs} ms`), request.timeoutMs);
    }
    this.#pending = request;
    this.#keepAlive(true);
    this.#trace('>', request.wire);
    this.#stream.write(request.wire);
  }

  #onData(chunk: Buffer): void {
    if (this.#failure !== undefined) return;
    let rest = chunk;
    if (this.#initLine !== undefined) {
      const nl = chunk.indexOf(0x0a);
      const part = nl < 0 ? chunk : chunk.subarray(0, nl);
      this.#initLine.push(part);
      this.#initBytes += part.length;
      if (this.#initBytes > MAX_INIT_LINE_BYTES) {
        this.#fail(DatStatus.INTERNAL_ERROR, `the PMI-2 server's reply to init is longer than ${MAX_INIT_LINE_BYTES} bytes without a newline`);
        return;
      }
      if (nl < 0) return;
      const line = Buffer.concat(this.#initLine).toString('utf8');
      this.#initLine = undefined;
      const message = parsePmiLine(line);
      if (isPmiWireError(message)) {
        this.#fail(DatStatus.INTERNAL_ERROR, `the PMI-2 server sent a malformed reply to init: ${message.message}`);
        return;
      }
      this.#trace('<', line);
      this.#deliver(message);
      rest = chunk.subarray(nl + 1);
    }
    if (rest.length === 0) return;
    for (const frame of this.#frames.push(rest)) {
      if (this.#failure !== undefined) return;
      const message = isPmiWireError(frame) ? frame : parsePmi2Payload(frame);
      if (isPmiWireError(message)) {
        this.#fail(DatStatus.INTERNAL_ERROR, `the PMI-2 server sent a malformed frame: ${message.message}`);
        return;
      }
      this.#trace('<', frame as string);
      this.#deliver(message);
    }
  }

  #deliver(message: PmiMessage): void {
    const request = this.#pending;
    if (request === undefined) {
      this.#fail(DatStatus.INTERNAL_ERROR, `the PMI-2 server sent ${pmiMessageText(message)} while no request was waiting`);
      return;
    }
    if (message.cmd !== request.expected) {
      this.#fail(DatStatus.INTERNAL_ERROR, `the PMI-2 server answered ${request.command} with ${pmiMessageText(message)} (expected cmd=${request.expected})`);
      return;
    }
    clearTimeout(request.timer);
    this.#pending = undefined;
    request.resolve(message);
    this.#pump();
  }

  #onClosed(): void {
    const truncated = this.#frames.end();
    if (this.#closing && this.#pending === undefined && this.#queue.length === 0) return;
    const reason = truncated !== undefined ? `the PMI-2 connection closed in the middle of a reply (${truncated.message})` : 'the PMI-2 server closed the connection';
    this.#fail(DatStatus.CONNECTION_BROKEN, reason);
  }

  #fail(status: DatStatus, reason: string): void {
    if (this.#failure !== undefined) return;
    this.#failure = new DatError(status, reason);
    this.#logger?.warn({ reason }, 'PMI-2 connection failed');
    const failed = this.#pending === undefined ? this.#queue.splice(0) : [this.#pending, ...this.#queue.splice(0)];
    this.#pending = undefined;
    for (const request of failed) {
      clearTimeout(request.timer);
      request.reject(new DatError(status, `PMI-2 ${request.command}: ${reason}`));
    }
    this.#keepAlive(false);
    this.#stream.destroy();
  }

  /** A wait on the server keeps Node running; an idle connection does not (as the PMI-1 channel). */
  #keepAlive(alive: boolean): void {
    const handle = this.#stream as Partial<{ ref(): unknown; unref(): unknown }>;
    if (alive) handle.ref?.();
    else handle.unref?.();
  }

  #trace(direction: '>' | '<', text: string): void {
    if (this.#logger?.isLevelEnabled('trace')) this.#logger.trace({ line: quote(text.trimEnd(), 200) }, `PMI-2 ${direction}`);
  }
}
