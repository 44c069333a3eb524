/**
 * The client's side of a PMI-1 conversation over one stream. PMI-1 is strictly request/response, and
 * servers are not required to accept pipelined commands, so requests are serialised: one is on the
 * wire at a time, the rest wait in a FIFO and replies are matched in order. Anything unexpected (a
 * malformed line, a reply nobody asked for, the wrong `cmd`, the stream closing, a timeout) fails
 * the channel: every pending and later request rejects with a DatError naming its command.
 */
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { PmiLineReader, PMI_MAX_LINE_BYTES } from './line-reader.js';
import { pmiMessageText } from './replies.js';
import { endPmiStream, writeFlushed } from './pmi-stream.js';
import { formatPmiLine, isPmiWireError, parsePmiLine, quote, type PmiFieldsInput, type PmiMessage } from './wire.js';

export interface PmiClientChannelOptions {
  readonly maxLineBytes?: number;
  readonly logger?: Logger;
  /** Told once when the channel fails (not when it is closed normally). */
  readonly onFailure?: (status: DatStatus, reason: string) => void;
}

interface PendingRequest {
  readonly command: string;
  readonly line: string;
  /** The `cmd` of each reply line, in order. */
  readonly expected: readonly string[];
  readonly timeoutMs: number | undefined;
  readonly replies: PmiMessage[];
  readonly resolve: (replies: PmiMessage[]) => void;
  readonly reject: (error: DatError) => void;
  timer: NodeJS.Timeout | undefined;
}

interface Failure {
  readonly status: DatStatus;
  readonly reason: string;
}


export class PmiClientChannel {
  readonly #stream: Duplex;
  readonly #reader: PmiLineReader;
  readonly #logger: Logger | undefined;
  readonly #onFailure: ((status: DatStatus, reason: string) => void) | undefined;
  readonly #queue: PendingRequest[] = [];
  #inFlight: PendingRequest | undefined;
  #failure: Failure | undefined;
  #closing = false;
  /** Lines the server may send unasked (a `dapl run` extension; Hydra sends none), by `cmd`. */
  readonly #notices = new Map<string, (message: PmiMessage) => void>();

  constructor(stream: Duplex, options: PmiClientChannelOptions = {}) {
    this.#stream = stream;
    this.#reader = new PmiLineReader(options.maxLineBytes ?? PMI_MAX_LINE_BYTES);
    this.#logger = options.logger;
    this.#onFailure = options.onFailure;
    stream.on('data', (chunk: Uint8Array | string) => this.#onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => this.#onClosed());
    stream.on('close', () => this.#onClosed());
    stream.on('error', (error: Error) => this.#fail(DatStatus.CONNECTION_BROKEN, `the PMI connection failed: ${error.message}`));
    this.#setKeepsProcessAlive(false);
    // A stream paused by an earlier reader (the PMI_PORT authentication) flows again.
    stream.resume();
  }

  /** The reason the channel failed, if it did. */
  get failure(): string | undefined {
    return this.#failure?.reason;
  }

  /** Accept longer lines once the server's limits are known. */
  raiseMaxLineBytes(maxLineBytes: number): void {
    this.#reader.raiseMaxLineBytes(maxLineBytes);
  }

  /** Sends `cmd=<command> …` when the requests before it are answered; resolves with the reply lines. */
  request(command: string, fields: PmiFieldsInput, expected: readonly string[], timeoutMs?: number): Promise<PmiMessage[]> {
    let line: string;
    try {
      line = formatPmiLine(command, fields);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#failure !== undefined) return Promise.reject(this.#laterError(command, this.#failure));
    if (this.#closing) return Promise.reject(new DatError(DatStatus.INVALID_STATE, `PMI ${command}: the PMI connection is being closed`));
    return new Promise<PmiMessage[]>((resolve, reject) => {
      this.#queue.push({ command, line, expected, timeoutMs, replies: [], resolve, reject, timer: undefined });
      this.#pump();
    });
  }

  /** Writes a line that has no reply (abort) at once, ahead of queued requests; resolves once flushed. */
  sendNow(command: string, fields: PmiFieldsInput): Promise<void> {
    const line = formatPmiLine(command, fields);
    if (this.#failure !== undefined || this.#stream.destroyed || !this.#stream.writable) return Promise.resolve();
    this.#trace('>', line);
    return writeFlushed(this.#stream, line);
  }

  /**
   * Hand lines with `cmd` that arrive unasked to `handler` instead of matching them to a request
   * (`dapl run` asks a rank what it waits for this way while its requests stay in order).
   */
  onNotice(cmd: string, handler: (message: PmiMessage) => void): void {
    this.#notices.set(cmd, handler);
  }

  /**
   * Fails the channel from outside (a reply whose content is malformed leaves the conversation in an
   * unknown state); returns the error for the caller's own request.
   */
  fail(command: string, reason: string, status: DatStatus = DatStatus.INTERNAL_ERROR): DatError {
    this.#fail(status, reason);
    return new DatError(status, `PMI ${command}: ${reason}`);
  }

  /** Ends the conversation normally (after finalize_ack): flushes, then closes the stream. */
  async close(): Promise<void> {
    this.#closing = true;
    await endPmiStream(this.#stream);
  }

  #pump(): void {
    if (this.#inFlight !== undefined || this.#failure !== undefined) return;
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#setKeepsProcessAlive(false);
      return;
    }
    this.#inFlight = next;
    // A wait on the server must keep Node running; an idle connection must not (a program that
    // forgets finalize() then exits, and the launcher reports it, instead of hanging).
    this.#setKeepsProcessAlive(true);
    if (next.timeoutMs !== undefined) {
      next.timer = setTimeout(() => this.#fail(DatStatus.TIMEOUT_EXPIRED, `no reply from the PMI server within ${next.timeoutMs} ms`), next.timeoutMs);
    }
    this.#trace('>', next.line);
    this.#stream.write(next.line);
  }

  #onData(chunk: Uint8Array): void {
    for (const item of this.#reader.push(chunk)) {
      if (this.#failure !== undefined) return;
      if (isPmiWireError(item)) {
        this.#fail(DatStatus.INTERNAL_ERROR, `the PMI server sent a malformed line: ${item.message}`);
        return;
      }
      this.#trace('<', item);
      const message = parsePmiLine(item);
      if (isPmiWireError(message)) {
        this.#fail(DatStatus.INTERNAL_ERROR, `the PMI server sent a malformed line: ${message.message}`);
        return;
      }
      const notice = this.#notices.get(message.cmd);
      if (notice !== undefined) notice(message);
      else this.#deliver(message, item);
    }
  }

  #deliver(message: PmiMessage, line: string): void {
    const request = this.#inFlight;
    if (request === undefined) {
      this.#fail(DatStatus.INTERNAL_ERROR, `the PMI server sent ${quote(line)} while no request was waiting`);
      return;
    }
    const expected = request.expected[request.replies.length];
    if (message.cmd !== expected) {
      this.#fail(DatStatus.INTERNAL_ERROR, `the PMI server answered with ${pmiMessageText(message)} (expected cmd=${expected})`);
      return;
    }
    request.replies.push(message);
    if (request.replies.length < request.expected.length) return;
    clearTimeout(request.timer);
    this.#inFlight = undefined;
    request.resolve(request.replies);
    this.#pump();
  }

  #onClosed(): void {
    const truncated = this.#reader.end();
    if (this.#closing && this.#inFlight === undefined && this.#queue.length === 0) return;
    const reason = truncated !== undefined ? `the PMI connection closed in the middle of a reply (${truncated.message})` : 'the PMI server closed the connection';
    this.#fail(DatStatus.CONNECTION_BROKEN, reason);
  }

  #fail(status: DatStatus, reason: string): void {
    if (this.#failure !== undefined) return;
    const failure: Failure = { status, reason };
    this.#failure = failure;
    this.#logger?.warn({ reason }, 'PMI connection failed');
    const pending = this.#inFlight === undefined ? this.#queue.splice(0) : [this.#inFlight, ...this.#queue.splice(0)];
    this.#inFlight = undefined;
    for (const request of pending) {
      clearTimeout(request.timer);
      request.reject(new DatError(status, `PMI ${request.command}: ${reason}`));
    }
    this.#setKeepsProcessAlive(false);
    this.#stream.destroy();
    this.#onFailure?.(status, reason);
  }

  #laterError(command: string, failure: Failure): DatError {
    return new DatError(failure.status, `PMI ${command}: the PMI connection failed earlier: ${failure.reason}`);
  }

  #setKeepsProcessAlive(alive: boolean): void {
    const handle = this.#stream as Partial<{ ref(): unknown; unref(): unknown }>;
    if (alive) handle.ref?.();
    else handle.unref?.();
  }

  #trace(direction: '>' | '<', line: string): void {
    if (this.#logger?.isLevelEnabled('trace')) this.#logger.trace({ line: line.trimEnd() }, `PMI ${direction}`);
  }
}
