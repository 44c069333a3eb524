/** A line longer than this is cut (and ended with a newline) so that a rank cannot grow the launcher's memory without bound. */
export const DEFAULT_MAX_LINE_BYTES = 1 << 20;

const NEWLINE = 0x0a;

/**
 * Turns one rank stream's chunks into whole lines, each written with `prefix` (`[2] ` or empty).
 * Every `write` carries whole lines only, so lines of two ranks sharing a sink never interleave.
 * Splits on the byte `\n`, which never occurs inside a UTF-8 sequence, and decodes whole lines only,
 * so a character cut between two chunks arrives intact.
 */
export class LineForwarder {
  readonly #write: (text: string) => void;
  readonly #prefix: string;
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(write: (text: string) => void, prefix = '', maxLineBytes = DEFAULT_MAX_LINE_BYTES) {
    this.#write = write;
    this.#prefix = prefix;
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Buffer | string): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const lines: string[] = [];
    let start = 0;
    for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
      lines.push(this.#prefix + this.#take(data.subarray(start, end + 1)));
      start = end + 1;
    }
    if (start < data.length) {
      this.#pending.push(data.subarray(start));
      this.#pendingBytes += data.length - start;
      if (this.#pendingBytes >= this.#maxLineBytes) lines.push(`${this.#prefix}${this.#take(Buffer.alloc(0))}\n`);
    }
    if (lines.length > 0) this.#write(lines.join(''));
  }

  /** Write a last line that has no newline (with one added, so the next writer starts on a new line). */
  flush(): void {
    if (this.#pendingBytes === 0) return;
    this.#write(`${this.#prefix}${this.#take(Buffer.alloc(0))}\n`);
  }

  /** The pending bytes followed by `tail`, decoded; clears the pending bytes. */
  #take(tail: Buffer): string {
    if (this.#pendingBytes === 0) return tail.toString('utf8');
    const whole = Buffer.concat([...this.#pending, tail]);
    this.#pending = [];
    this.#pendingBytes = 0;
    return whole.toString('utf8');
  }
}
