import { DtoStatus, MemAccess } from '@dapl/core';
import type { PostedRecv } from '@dapl/core/provider-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { RecvSink, type SinkPath } from '../src/payload-sinks.js';
import { adoptAccepted, DIRECT_READ_BYTES, ReadBuffer } from '../src/read-buffer.js';
import { closeSockets, connectedEndpoints, next, socketPair, sockets, until } from './pairs.js';

afterEach(closeSockets);

function pattern(length: number, salt: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + salt) & 0xff;
  return bytes;
}

/** Byte equality without a deep comparison (megabytes). */
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

describe('tcp direct reads', () => {
  it('a payload read in place arrives across many socket reads, each straight into the destination', async () => {
    const { accepted, client } = await socketPair();
    const dest = new Uint8Array(300_000);
    const payload = dest.subarray(1000, 1000 + 256 * 1024);
    let placed = 0;
    const outside: number[] = [];
    const reader = new ReadBuffer();
    reader.target = {
      holdsInput: false,
      directRoom: () => (payload.length - placed >= DIRECT_READ_BYTES ? payload.subarray(placed) : undefined),
      input(bytes) {
        // Input not read in place goes where it belongs by a copy, as a sink would place it.
        if (bytes.buffer !== dest.buffer) {
          outside.push(bytes.length);
          payload.set(bytes, placed);
        } else {
          expect(bytes.byteOffset).toBe(payload.byteOffset + placed);
        }
        placed += bytes.length;
        return true;
      },
    };
    sockets.push(adoptAccepted(accepted, reader, 1 << 20)!);
    const sent = pattern(payload.length, 3);
    // Several writes with pauses: the reader sees partial payloads, each continuing where the last stopped.
    for (let at = 0; at < sent.length; at += 40_000) {
      client.write(sent.subarray(at, Math.min(sent.length, at + 40_000)));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await until(() => placed === sent.length);
    expect(same(payload, sent)).toBe(true);
    expect(dest.subarray(0, 1000).every((b) => b === 0)).toBe(true);
    expect(dest.subarray(1000 + payload.length).every((b) => b === 0)).toBe(true);
    // Only the last bytes, fewer than DIRECT_READ_BYTES, may have come through the read buffer.
    expect(outside.reduce((n, l) => n + l, 0)).toBeLessThan(DIRECT_READ_BYTES);
  });

  it("a receive sink offers the posted receive's memory and places a piece read there without moving it", () => {
    const path = { frameRequestsAck: false, ended: false, host: { completeRecv() {} }, processed() {}, owe() {} } as unknown as SinkPath;
    const sink = new RecvSink(path);
    const memory = new Uint8Array(100_000);
    const recv = { iov: [{ lmr: { bytes: memory }, offset: 500, length: 90_000 }], length: 90_000 } as unknown as PostedRecv;
    sink.start(recv, 1, 80_000);
    const room = sink.room()!;
    expect(room.buffer).toBe(memory.buffer);
    expect([room.byteOffset, room.length]).toEqual([500, 80_000]);
    room.fill(9, 0, 50_000);
    sink.write(room.subarray(0, 50_000));
    expect([sink.room()!.byteOffset, sink.room()!.length]).toEqual([50_500, 30_000]);
    sink.write(new Uint8Array(30_000).fill(4));
    sink.end();
    expect(sink.room()).toBeUndefined();
    expect(memory[499]).toBe(0);
    expect(memory[500]).toBe(9);
    expect(memory[50_499]).toBe(9);
    expect(memory[50_500]).toBe(4);
    expect(memory[80_499]).toBe(4);
    expect(memory[80_500]).toBe(0);
  });
});

describe('tcp large payloads end to end', () => {
  it('a 4 MiB send lands at its offset in the posted receive, an RDMA write and read of 1 MiB at theirs', async () => {
    const { a, b, client, clientEvd, server, serverEvd } = await connectedEndpoints();
    try {
      const big = 4 * 1024 * 1024;
      const landing = new Uint8Array(big + 777);
      server.postRecv([{ lmr: server.pz.registerLmr(landing, MemAccess.LOCAL), offset: 333, length: big }], 'recv');
      const sent = pattern(big, 5);
      client.postSend([{ lmr: client.pz.registerLmr(sent, MemAccess.LOCAL), offset: 0, length: big }], 'send');
      expect(await next(clientEvd)).toMatchObject({ type: 'dto-completion', cookie: 'send', status: DtoStatus.SUCCESS });
      expect(await next(serverEvd)).toMatchObject({ type: 'dto-completion', cookie: 'recv', status: DtoStatus.SUCCESS, transferredLength: big });
      expect(same(landing.subarray(333, 333 + big), sent)).toBe(true);
      expect(landing[332]).toBe(0);
      expect(landing[333 + big]).toBe(0);

      const mib = 1024 * 1024;
      const window = new Uint8Array(3 * mib);
      const triplet = server.pz.createRmr().bind(server.pz.registerLmr(window, MemAccess.ALL), 0, window.length, MemAccess.REMOTE_WRITE | MemAccess.REMOTE_READ);
      const written = pattern(mib, 7);
      client.postRdmaWrite([{ lmr: client.pz.registerLmr(written, MemAccess.LOCAL), offset: 0, length: mib }], 'write', { ...triplet, targetOffset: 100 });
      expect(await next(clientEvd)).toMatchObject({ type: 'dto-completion', cookie: 'write', status: DtoStatus.SUCCESS });
      expect(same(window.subarray(100, 100 + mib), written)).toBe(true);
      const readBack = new Uint8Array(mib + 50);
      client.postRdmaRead([{ lmr: client.pz.registerLmr(readBack, MemAccess.ALL), offset: 50, length: mib }], 'read', { ...triplet, targetOffset: 100 });
      expect(await next(clientEvd)).toMatchObject({ type: 'dto-completion', cookie: 'read', status: DtoStatus.SUCCESS });
      expect(same(readBack.subarray(50), written)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
