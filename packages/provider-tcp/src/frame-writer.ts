import type { Socket } from 'node:net';
import { HEADER_SIZE, writeHeader, type FrameType } from './wire/index.js';

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
    // Nothing written is still queued (Node counts every byte until the kernel has taken it): the
    // slab is free again. Reusing it spares a fresh 64 KiB external buffer every few dozen frames,
    // whose garbage would otherwise cost more than the writes themselves.
    if (this.socket.writableLength === 0) this.start = this.pos = 0;
    this.socket.cork();
  }

  /** True while the socket's buffer is below its high-water mark. */
  get open(): boolean {
    return this.accepting;
  }

  /** Positional, so the per-frame path allocates nothing; values come from the provider itself. */
  header(type: FrameType, flags: number, status: number, payloadLength: number, seq: number, ack: number, aux: number, rmrContext: bigint, targetOffset: bigint): void {
    this.reserve(HEADER_SIZE);
    this.pos = writeHeader(this.slab, this.pos, type, flags, status, payloadLength, seq, ack, aux, rmrContext, targetOffset);
  }

  /** `length` bytes of `source` from `offset`: copied when small, else queued as a view. */
  payload(source: Uint8Array, offset: number, length: number): void {
    if (length === 0) return;
    if (length <= this.copyThreshold) {
      this.reserve(length);
      const slab = this.slab;
      const at = this.pos;
      if (length <= 64) {
        // A loop beats creating a view for set() at these sizes.
        for (let i = 0; i < length; i++) slab[at + i] = source[offset + i];
      } else {
        slab.set(source.subarray(offset, offset + length), at);
      }
      this.pos += length;
      return;
    }
    this.flushSlab();
    this.queue(source.subarray(offset, offset + length));
  }

  end(): boolean {
    this.flushSlab();
    this.socket.uncork();
    return this.accepting;
  }

  private queue(chunk: Uint8Array): void {
    if (!this.socket.write(chunk)) this.accepting = false;
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
    this.queue(this.slab.subarray(this.start, this.pos));
    this.start = this.pos;
  }
}
