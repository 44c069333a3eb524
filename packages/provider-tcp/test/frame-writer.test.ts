import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../src/frame-writer.js';
import { decodeHeader, FrameType, HEADER_SIZE } from '../src/wire/index.js';

/**
 * A socket stand-in that keeps every chunk it is given (as the kernel would hold it until sent)
 * and reports as queued whatever the test says has not been sent yet.
 */
class HeldSocket {
  readonly chunks: Uint8Array[] = [];
  writableLength = 0;
  /** Whether write() reports room (false: the caller must wait for 'drain'). */
  room = true;
  cork(): void {}
  uncork(): void {}
  write(chunk: Uint8Array): boolean {
    this.chunks.push(chunk);
    return this.room;
  }
  /** What the peer would read: the chunks' bytes as they are now. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
  }
}

function frame(writer: FrameWriter, seq: number, payload: Uint8Array): boolean {
  writer.begin();
  writer.header(FrameType.SEND, 0, 0, payload.length, seq, 0, 0, 0n, 0n);
  writer.payload(payload, 0, payload.length);
  return writer.end();
}

function frames(stream: Buffer): { seq: number; payload: Buffer }[] {
  const out: { seq: number; payload: Buffer }[] = [];
  for (let at = 0; at < stream.length; ) {
    const h = decodeHeader(stream.subarray(at, at + HEADER_SIZE), { maxPayload: 1 << 20 });
    if (!('seq' in h)) throw new Error(`bad frame at ${at}: ${h.message}`);
    at += HEADER_SIZE;
    out.push({ seq: h.seq, payload: stream.subarray(at, at + h.payloadLength) });
    at += h.payloadLength;
  }
  return out;
}

describe('FrameWriter', () => {
  it('never overwrites bytes the socket still holds, across many slabs', () => {
    const socket = new HeldSocket();
    socket.writableLength = 1; // nothing is ever sent: every byte stays queued
    const writer = new FrameWriter(socket as unknown as Socket, 4096);
    const payloads = Array.from({ length: 100 }, (_, i) => new Uint8Array(3000).fill(i));
    payloads.forEach((p, i) => frame(writer, i + 1, p));
    const got = frames(socket.bytes());
    expect(got.map((f) => f.seq)).toEqual(payloads.map((_, i) => i + 1));
    got.forEach((f, i) => expect(f.payload.equals(Buffer.from(payloads[i]))).toBe(true));
  });

  it('reuses its slab once the socket has sent everything, and the bytes are the new frame', () => {
    const socket = new HeldSocket();
    const writer = new FrameWriter(socket as unknown as Socket, 4096);
    frame(writer, 1, new Uint8Array(100).fill(7));
    const first = socket.chunks[0];
    // The kernel took it all (writableLength 0): the next frame starts at the slab's beginning.
    frame(writer, 2, new Uint8Array(100).fill(9));
    const second = socket.chunks[1];
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
    expect(frames(Buffer.from(second))).toEqual([{ seq: 2, payload: Buffer.alloc(100, 9) }]);
  });

  it('writes large payloads from the caller\'s memory and reports a full socket', () => {
    const socket = new HeldSocket();
    socket.room = false;
    const writer = new FrameWriter(socket as unknown as Socket, 4096);
    const big = new Uint8Array(10_000).fill(3);
    expect(frame(writer, 1, big)).toBe(false);
    expect(socket.chunks[1].buffer).toBe(big.buffer);
    expect(frames(socket.bytes())[0].payload.equals(Buffer.from(big))).toBe(true);
  });
});
