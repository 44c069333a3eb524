import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isFrameError, type DtoRequest, type FrameSink } from '@dapl/core/provider-kit';
import { DataPath, type DataPathHost } from '../src/progress.js';
import { decodeHeader, FrameFlag, FrameType, HEADER_SIZE, type TcpFrameHeader } from '../src/wire/index.js';

const HIGH_WATER = 256 * 1024;
const PAYLOAD = 64 * 1024;

/** A socket that keeps what is written (it drains only when a test says so), with Node's accounting of queued bytes. */
class RecordingSocket extends EventEmitter {
  readonly writableHighWaterMark = HIGH_WATER;
  writableLength = 0;
  destroyed = false;
  /** The kernel takes every write at once (nothing stays queued in Node). */
  takesAll = false;
  readonly chunks: Uint8Array[] = [];
  cork(): void {}
  uncork(): void {}
  write(chunk: Uint8Array): boolean {
    this.chunks.push(chunk.slice());
    if (!this.takesAll) this.writableLength += chunk.length;
    return this.writableLength < this.writableHighWaterMark;
  }

  /** The frame types written so far, in order. */
  frames(): FrameType[] {
    return this.headers().map((h) => h.type);
  }

  /** The frame headers written so far, in order (payloads skipped by their header's length). */
  headers(): TcpFrameHeader[] {
    const bytes = Buffer.concat(this.chunks);
    const headers: TcpFrameHeader[] = [];
    for (let at = 0; at < bytes.length; ) {
      const header = decodeHeader(bytes.subarray(at), { maxPayload: 1 << 30 });
      if (isFrameError(header)) throw new Error(header.message);
      headers.push(header);
      at += HEADER_SIZE + header.payloadLength;
    }
    return headers;
  }
}

let seq = 0;
function request(op: DtoRequest['op'], length: number, localCompletion = false): DtoRequest {
  const lmr = { bytes: new Uint8Array(length) } as unknown as DtoRequest['iov'][number]['lmr'];
  return {
    op,
    cookie: undefined,
    iov: op === 'rdma-read' ? [] : [{ lmr, offset: 0, length }],
    length,
    remote: { rmrContext: 1n, targetOffset: 0, length },
    immediate: 0,
    seq: ++seq,
    signaled: true,
    localCompletion,
  };
}

/** A data path on a recording socket, whose host keeps the outstanding requests in post order and records what completes. */
function dataPath(): { path: DataPath; socket: RecordingSocket; submit: (r: DtoRequest) => void; completed: number[] } {
  const socket = new RecordingSocket();
  const outstanding: DtoRequest[] = [];
  const completed: number[] = [];
  const host = {
    peekRequest: () => outstanding[0],
    completeRequest: () => completed.push(outstanding.shift()!.seq),
  } as unknown as DataPathHost;
  const path = new DataPath(socket as unknown as Socket, host, 4096, () => {});
  return { path, socket, completed, submit: (r) => (outstanding.push(r), path.submit(r)) };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('tcp data path output', () => {
  it('coalesces requests below the socket high-water mark into the next turn', async () => {
    const { path, socket } = dataPath();
    for (let i = 0; i < 3; i++) path.submit(request('rdma-write', PAYLOAD));
    expect(socket.chunks).toHaveLength(0);
    await nextTurn();
    expect(socket.frames()).toEqual([FrameType.RDMA_WRITE, FrameType.RDMA_WRITE, FrameType.RDMA_WRITE]);
  });

  it('writes at once when a high-water mark of payload is queued, so a burst streams while it is posted', () => {
    const { path, socket } = dataPath();
    for (let i = 0; i < 3; i++) path.submit(request('rdma-write', PAYLOAD));
    expect(socket.chunks).toHaveLength(0);
    path.submit(request('rdma-write-immediate', PAYLOAD));
    expect(socket.frames()).toEqual([FrameType.RDMA_WRITE, FrameType.RDMA_WRITE, FrameType.RDMA_WRITE, FrameType.RDMA_WRITE_IMM]);
  });

  it('does not count a read request, which carries no payload of ours, toward the high-water mark', async () => {
    const { path, socket } = dataPath();
    for (let i = 0; i < 4; i++) path.submit(request('rdma-read', PAYLOAD));
    expect(socket.chunks).toHaveLength(0);
    await nextTurn();
    expect(socket.frames()).toEqual([FrameType.READ_REQ, FrameType.READ_REQ, FrameType.READ_REQ, FrameType.READ_REQ]);
  });

  it('leaves what the socket cannot take for its drain instead of writing past the high-water mark', async () => {
    const { path, socket } = dataPath();
    for (let i = 0; i < 8; i++) path.submit(request('rdma-write', PAYLOAD));
    // The first high-water mark went at once; the socket is full, so the rest waits for 'drain'.
    expect(socket.frames()).toHaveLength(4);
    await nextTurn();
    expect(socket.frames()).toHaveLength(4);
    socket.writableLength = 0;
    socket.emit('drain');
    expect(socket.frames()).toHaveLength(8);
  });
});

describe('tcp data path, local completion', () => {
  const asksForAck = (h: TcpFrameHeader) => (h.flags & FrameFlag.ACK_REQUEST) !== 0;

  it('asks for no acknowledgement of requests that complete locally, so the peer writes no lone ACK for them', async () => {
    const { socket, submit } = dataPath();
    submit(request('send', 1000, true));
    await nextTurn();
    submit(request('rdma-write', 1000, true));
    submit(request('send', 1000, true));
    await nextTurn();
    expect(socket.frames()).toEqual([FrameType.SEND, FrameType.RDMA_WRITE, FrameType.SEND]);
    expect(socket.headers().map(asksForAck)).toEqual([false, false, false]);
  });

  it('asks at the end of a burst holding a request that waits for the acknowledgement, even when the last completes locally', async () => {
    const { socket, submit } = dataPath();
    submit(request('send', 1000));
    submit(request('send', 1000, true));
    await nextTurn();
    submit(request('rdma-write', 1000, true));
    await nextTurn();
    submit(request('rdma-write', 1000));
    await nextTurn();
    expect(socket.headers().map(asksForAck)).toEqual([false, true, false, true]);
  });

  it('completes requests that asked for it once the socket has taken all that was written, in post order', async () => {
    const { socket, submit, completed } = dataPath();
    const a = request('rdma-write', 1000, true);
    const b = request('send', 1000, true);
    submit(a);
    submit(b);
    await nextTurn();
    expect(socket.frames()).toEqual([FrameType.RDMA_WRITE, FrameType.SEND]);
    // Node still holds the bytes (the recording socket never drains by itself): the caller's memory is still in use.
    expect(completed).toEqual([]);
    socket.writableLength = 0;
    socket.emit('drain');
    await Promise.resolve();
    expect(completed).toEqual([a.seq, b.seq]);
  });

  it('leaves a plain request and everything behind it to the acknowledgement', async () => {
    const { socket, submit, completed } = dataPath();
    const local = request('rdma-write', 100, true);
    const plain = request('rdma-write', 100);
    const after = request('rdma-write', 100, true);
    submit(local);
    submit(plain);
    submit(after);
    socket.writableLength = 0;
    await nextTurn();
    socket.writableLength = 0;
    socket.emit('drain');
    await Promise.resolve();
    expect(completed).toEqual([local.seq]);
  });

  it('completes only what the kernel had when the flush ended, not what a later flush in the same task left queued', () => {
    const { socket, submit, completed } = dataPath();
    const first = Array.from({ length: 4 }, () => request('rdma-write', PAYLOAD, true));
    // A socket's worth goes out at once, and the kernel takes it all.
    socket.takesAll = true;
    for (const r of first) submit(r);
    // Still in the same task: the next socket's worth goes out too, and Node keeps it queued.
    socket.takesAll = false;
    for (let i = 0; i < 4; i++) submit(request('rdma-write', PAYLOAD, true));
    expect(socket.writableLength).toBeGreaterThan(0);
    return Promise.resolve().then(() => expect(completed).toEqual(first.map((r) => r.seq)));
  });

  it('completes a local write held behind a read as soon as the read\'s response has come, without an acknowledgement', async () => {
    const { path, socket, submit, completed } = dataPath();
    socket.takesAll = true;
    const into = { bytes: new Uint8Array(16) } as unknown as DtoRequest['iov'][number]['lmr'];
    const read: DtoRequest = { ...request('rdma-read', 16), iov: [{ lmr: into, offset: 0, length: 16 }] };
    const write = request('rdma-write', 16, true);
    submit(read);
    submit(write);
    await nextTurn();
    await Promise.resolve();
    expect(completed).toEqual([]); // the read heads the queue
    const response: TcpFrameHeader = { type: FrameType.READ_RESP, flags: 0, status: 0, payloadLength: 16, seq: read.seq, ack: 0, aux: 0, rmrContext: 0n, targetOffset: 0n };
    const sink = path.onFrame(response) as FrameSink;
    sink.write(new Uint8Array(16).fill(4));
    sink.end();
    expect(completed).toEqual([read.seq, write.seq]);
    expect([...into.bytes]).toEqual(new Array(16).fill(4));
  });

  it('never completes a read early (its data has not arrived)', async () => {
    const { socket, submit, completed } = dataPath();
    submit(request('rdma-read', 100, true));
    await nextTurn();
    socket.writableLength = 0;
    socket.emit('drain');
    await Promise.resolve();
    expect(completed).toEqual([]);
  });
});
