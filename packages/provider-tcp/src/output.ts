import type { Socket } from 'node:net';
import { encodeHeader, HEADER_SIZE, type HeaderFields } from './wire/index.js';

const SLAB_SIZE = 64 * 1024;

/**
 * Coalesces frames into one writev per flush: headers and small payloads are copied into a
 * slab, large payloads are written from the caller's memory (zero copy; the DTO completes only
 * after the peer acknowledged, so the memory stays untouched until the kernel has it).
 * `end()` reports whether the socket still accepts more (false: wait for 'drain').
 */
export class FrameWriter {
  private slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
  private start = 0;
  private pos = 0;
  private accepting = true;

  constructor(
    private readonly socket: Socket,
    private readonly copyThreshold: number,
  ) {}

  begin(): void {
    this.accepting = true;
    this.socket.cork();
  }

  /** True while the socket's buffer is below its high-water mark. */
  get open(): boolean {
    return this.accepting;
  }

  header(fields: HeaderFields): void {
    this.reserve(HEADER_SIZE);
    this.pos = encodeHeader(this.slab, this.pos, fields);
  }

  payload(view: Uint8Array): void {
    if (view.length === 0) return;
    if (view.length <= this.copyThreshold) {
      this.reserve(view.length);
      this.slab.set(view, this.pos);
      this.pos += view.length;
      return;
    }
    this.flushSlab();
    if (!this.socket.write(view)) this.accepting = false;
  }

  end(): boolean {
    this.flushSlab();
    this.socket.uncork();
    return this.accepting;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.slab.length) return;
    this.flushSlab();
    // The written part of the old slab belongs to the socket until sent: start a fresh one.
    this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_SIZE, n));
    this.start = 0;
    this.pos = 0;
  }

  private flushSlab(): void {
    if (this.pos === this.start) return;
    if (!this.socket.write(this.slab.subarray(this.start, this.pos))) this.accepting = false;
    this.start = this.pos;
  }
}
