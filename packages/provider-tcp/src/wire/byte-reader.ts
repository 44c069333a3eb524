import { FrameError } from '@dapl/core/provider-kit';

const EMPTY = new Uint8Array(0);

/**
 * A bounds-checked cursor over an untrusted payload. The first failure sticks: later reads
 * return 0 / empty, and the decoder returns `error` once at the end — no exceptions on garbage.
 */
export class ByteReader {
  private at = 0;
  private firstError: FrameError | undefined;

  constructor(
    private readonly data: Uint8Array,
    private readonly what: string,
  ) {}

  get error(): FrameError | undefined {
    return this.firstError;
  }

  fail(message: string): void {
    this.firstError ??= new FrameError(`${this.what}: ${message}`);
  }

  private claim(width: number, field: string): boolean {
    if (this.firstError !== undefined) return false;
    if (width > this.data.byteLength - this.at) {
      this.fail(`truncated at ${field} (needs ${width} bytes at offset ${this.at}, ${this.data.byteLength - this.at} left)`);
      return false;
    }
    return true;
  }

  u8(field: string): number {
    if (!this.claim(1, field)) return 0;
    return this.data[this.at++];
  }

  u16(field: string): number {
    if (!this.claim(2, field)) return 0;
    const value = this.data[this.at] | (this.data[this.at + 1] << 8);
    this.at += 2;
    return value;
  }

  u32(field: string): number {
    if (!this.claim(4, field)) return 0;
    const d = this.data;
    const value = (d[this.at] | (d[this.at + 1] << 8) | (d[this.at + 2] << 16)) + d[this.at + 3] * 0x100_0000;
    this.at += 4;
    return value;
  }

  /** A copy, so the value does not alias the receive buffer. */
  bytes(length: number, field: string): Uint8Array {
    if (!this.claim(length, field)) return EMPTY;
    const value = this.data.slice(this.at, this.at + length);
    this.at += length;
    return value;
  }

  /** Fails unless every byte has been read (trailing garbage is an error). */
  finish(): void {
    if (this.firstError === undefined && this.at !== this.data.byteLength) {
      this.fail(`${this.data.byteLength - this.at} unexpected trailing bytes`);
    }
  }
}
