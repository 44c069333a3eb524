/**
 * The server's side of one client stream: splits and parses lines, hands messages to a handler one
 * at a time, and can hold them back (a rank waiting in a barrier gets its later replies only after
 * `barrier_out`, so they stay in order). `abort` and protocol errors are handed over even while held:
 * a rank may abort while its barrier_in is pending, and garbage must close the rank at once. Our replies honour backpressure: while the peer
 * does not read them, we stop reading its commands.
 */
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { PmiLineReader } from './line-reader.js';
import { WAIT_REPORT } from './wait-query.js';
import { formatPmiLine, isPmiWireError, parsePmiLine, type PmiFieldsInput, type PmiMessage } from './wire.js';

export interface PmiServerConnectionHandler {
  onMessage(message: PmiMessage): void;
  /** The peer broke the protocol (malformed line, too many queued commands). */
  onWireError(message: string): void;
  /** The stream ended or failed (called once, not after `destroy()`). */
  onClose(): void;
}

type Intake = { readonly message: PmiMessage } | { readonly error: string };

/** A well-behaved client waits for each reply; this many unanswered commands is abuse, not pipelining. */
const MAX_QUEUED_COMMANDS = 256;

export class PmiServerConnection {
  readonly #stream: Duplex;
  readonly #reader: PmiLineReader;
  #handler: PmiServerConnectionHandler;
  readonly #queue: Intake[] = [];
  #held = false;
  #blocked = false;
  #delivering = false;
  #closed = false;

  constructor(stream: Duplex, maxLineBytes: number, handler: PmiServerConnectionHandler) {
    this.#stream = stream;
    this.#reader = new PmiLineReader(maxLineBytes);
    this.#handler = handler;
    stream.on('data', (chunk: Uint8Array | string) => this.#onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('end', () => this.#onClosed());
    stream.on('close', () => this.#onClosed());
    // A reset peer: 'close' follows and reports it.
    stream.on('error', () => {});
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Routes later messages elsewhere (a PMI_PORT client, once identified, becomes a rank). */
  setHandler(handler: PmiServerConnectionHandler): void {
    this.#handler = handler;
  }

  /** Stop handing over messages (other than `abort` and protocol errors) until `release()`. */
  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    this.#drain();
  }

  send(cmd: string, fields: PmiFieldsInput = {}): void {
    this.sendLines(formatPmiLine(cmd, fields));
  }

  /** Writes pre-formatted lines (several replies in one write). */
  sendLines(text: string): void {
    if (this.#closed || this.#stream.destroyed) return;
    if (this.#stream.write(text) || this.#blocked) return;
    this.#blocked = true;
    this.#stream.pause();
    this.#stream.once('drain', () => {
      this.#blocked = false;
      this.#drain();
    });
  }

  /** Closes the stream without reporting `onClose` (the caller already knows why). */
  destroy(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#stream.destroy();
  }

  #onData(chunk: Uint8Array): void {
    if (this.#closed) return;
    for (const line of this.#reader.push(chunk)) {
      const parsed = isPmiWireError(line) ? line : parsePmiLine(line);
      if (isPmiWireError(parsed)) this.#queue.push({ error: parsed.message });
      else this.#queue.push({ message: parsed });
    }
    if (this.#queue.length > MAX_QUEUED_COMMANDS) {
      this.#queue.length = 0;
      this.#queue.push({ error: `more than ${MAX_QUEUED_COMMANDS} PMI commands were sent without waiting for their replies` });
    }
    this.#drain();
  }

  #drain(): void {
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      // A handler may release or hold this connection again: re-check on every turn.
      for (;;) {
        const item = this.#next();
        if (item === undefined) break;
        if ('error' in item) this.#handler.onWireError(item.error);
        else this.#handler.onMessage(item.message);
      }
    } finally {
      this.#delivering = false;
    }
    if (!this.#blocked && !this.#closed && this.#stream.isPaused()) this.#stream.resume();
  }

  /**
   * The next item to hand over. While held, only an `abort`, a protocol error or a rank's answer to
   * the launcher's wait query: none has a reply to keep in order, and the first two end something
   * that must not wait for the barrier (a rank in a barrier is what the wait query asks about).
   */
  #next(): Intake | undefined {
    if (this.#closed || this.#queue.length === 0) return undefined;
    if (this.#held) {
      const index = this.#queue.findIndex((item) => 'error' in item || item.message.cmd === 'abort' || item.message.cmd === WAIT_REPORT);
      return index < 0 ? undefined : this.#queue.splice(index, 1)[0];
    }
    return this.#blocked ? undefined : this.#queue.shift();
  }

  #onClosed(): void {
    if (this.#closed) return;
    const truncated = this.#reader.end();
    if (truncated !== undefined) {
      this.#handler.onWireError(truncated.message);
      return;
    }
    this.#closed = true;
    this.#queue.length = 0;
    this.#handler.onClose();
  }
}
