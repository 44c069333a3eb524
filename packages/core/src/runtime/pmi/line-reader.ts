/**
 * Splits a PMI byte stream into lines: one read may carry several lines or part of one. Memory stays
 * bounded: a line longer than `maxLineBytes` is a protocol error as soon as it is seen, whether or
 * not its newline has arrived. After the first error all input is ignored (the stream is unusable).
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { PmiWireError } from './wire.js';

/** A PMI-1 put line is `cmd=put kvsname=<256> key=<64> value=<1023>`, about 1,400 bytes: 4 KiB leaves room. */
export const PMI_MAX_LINE_BYTES = 4096;

const NEWLINE = 0x0a;

/** A complete line (without its `\n`), or the reader's one protocol error. */
export type PmiLine = string | PmiWireError;

/** Splits a PMI-1 byte stream into lines, byte by byte and whatever the chunking, refusing a line past the limit. */
export class PmiLineReader {
  #maxLineBytes: number;
  readonly #parts: Uint8Array[] = [];
  #pendingBytes = 0;
  #failed = false;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(maxLineBytes = PMI_MAX_LINE_BYTES) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `maxLineBytes ${maxLineBytes} is not an integer >= 1`, { argument: 'maxLineBytes' });
    }
    this.#maxLineBytes = maxLineBytes;
  }

  get maxLineBytes(): number {
    return this.#maxLineBytes;
  }

  /** Allows longer lines from now on (a client learns the server's limits after the first replies). Never lowers. */
  raiseMaxLineBytes(maxLineBytes: number): void {
    if (Number.isSafeInteger(maxLineBytes) && maxLineBytes > this.#maxLineBytes) this.#maxLineBytes = maxLineBytes;
  }

  /** True once a protocol error was returned. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Bytes of an unfinished line held until its newline arrives (at most `maxLineBytes`). */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** The complete lines `chunk` finishes, in order; a `PmiWireError`, if any, is last. */
  push(chunk: Uint8Array): PmiLine[] {
    const out: PmiLine[] = [];
    if (this.#failed) return out;
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      const length = this.#pendingBytes + (nl - start);
      if (length > this.maxLineBytes) return this.#fail(out, `a PMI line of ${length} bytes exceeds the maximum of ${this.maxLineBytes}`);
      const bytes = this.#takeLine(chunk.subarray(start, nl));
      start = nl + 1;
      const text = this.#decode(bytes);
      if (text === undefined) return this.#fail(out, `a PMI line of ${bytes.length} bytes is not valid UTF-8`);
      out.push(text);
    }
    const rest = chunk.length - start;
    if (rest > 0) {
      if (this.#pendingBytes + rest > this.maxLineBytes) {
        return this.#fail(out, `a PMI line exceeds the maximum of ${this.maxLineBytes} bytes (${this.#pendingBytes + rest} bytes and no newline yet)`);
      }
      // Copied (Buffer#slice would be a view): the caller may reuse its read buffer.
      const copy = new Uint8Array(rest);
      copy.set(chunk.subarray(start));
      this.#parts.push(copy);
      this.#pendingBytes += rest;
    }
    return out;
  }

  /** The stream ended: an unfinished line is a protocol error (a truncated command or reply). */
  end(): PmiWireError | undefined {
    if (this.#failed || this.#pendingBytes === 0) return undefined;
    const error = new PmiWireError(`the PMI stream ended in the middle of a line (${this.#pendingBytes} bytes without a newline)`);
    this.#failed = true;
    this.#parts.length = 0;
    this.#pendingBytes = 0;
    return error;
  }

  #takeLine(tail: Uint8Array): Uint8Array {
    if (this.#pendingBytes === 0) return tail;
    const bytes = new Uint8Array(this.#pendingBytes + tail.length);
    let offset = 0;
    for (const part of this.#parts) {
      bytes.set(part, offset);
      offset += part.length;
    }
    bytes.set(tail, offset);
    this.#parts.length = 0;
    this.#pendingBytes = 0;
    return bytes;
  }

  #decode(bytes: Uint8Array): string | undefined {
    try {
      return this.#decoder.decode(bytes);
    } catch {
      return undefined;
    }
  }

  #fail(out: PmiLine[], message: string): PmiLine[] {
    this.#failed = true;
    this.#parts.length = 0;
    this.#pendingBytes = 0;
    out.push(new PmiWireError(message));
    return out;
  }
}
