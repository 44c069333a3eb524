import { once } from 'node:events';
import { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptAccepted, READ_BUFFER_BYTES, ReadBuffer, type InputTarget } from '../src/read-buffer.js';
import { closeSockets, socketPair, sockets, until } from './pairs.js';

/** Records what it is handed (copies, and the buffers the views lie in); may hold on to input. */
class Recorder implements InputTarget {
  readonly received: number[] = [];
  readonly buffers = new Set<ArrayBufferLike>();
  holdsInput = false;
  stopAfter = Infinity;
  input(bytes: Uint8Array): boolean {
    this.received.push(...bytes);
    this.buffers.add(bytes.buffer);
    return this.received.length < this.stopAfter;
  }
}

afterEach(closeSockets);

describe('ReadBuffer and adoptAccepted', () => {
  it('an accepted socket moves into one that reads into the read buffer, every read into the same memory', async () => {
    const { accepted, client } = await socketPair();
    const reader = new ReadBuffer();
    const recorder = new Recorder();
    reader.target = recorder;
    const socket = adoptAccepted(accepted, reader, 1 << 20)!;
    expect(socket).toBeInstanceOf(Socket);
    sockets.push(socket);
    const sent = Array.from({ length: 300_000 }, (_, i) => (i * 7) & 0xff);
    client.write(Uint8Array.from(sent));
    await until(() => recorder.received.length === sent.length);
    expect(recorder.received).toEqual(sent);
    expect(recorder.buffers.size).toBe(1);
    // The adopted socket writes too, and the peer's leaving is seen.
    socket.write(Uint8Array.of(1, 2, 3));
    const [echo] = (await once(client, 'data')) as [Buffer];
    expect([...echo]).toEqual([1, 2, 3]);
    client.end();
    await once(socket, 'end');
  });

  it('input the target holds on to is not overwritten: the next reads go into a fresh buffer', async () => {
    const { accepted, client } = await socketPair();
    const reader = new ReadBuffer();
    const views: Uint8Array[] = [];
    let held = false;
    reader.target = {
      input(bytes) {
        views.push(bytes);
        held = true; // keeps every view, as the decoder does while a frame is refused
        return true;
      },
      get holdsInput() {
        return held;
      },
    };
    sockets.push(adoptAccepted(accepted, reader, 1 << 20)!);
    const first = new Uint8Array(1000).fill(0xaa);
    client.write(first);
    await until(() => views.length === 1);
    client.write(new Uint8Array(1000).fill(0xbb));
    await until(() => views.reduce((n, v) => n + v.length, 0) === 2000);
    expect(views[0]![0]).toBe(0xaa);
    expect(views.at(-1)![0]).toBe(0xbb);
    expect(views[0]!.buffer).not.toBe(views.at(-1)!.buffer);
  });

  it('a target that answers false stops reading until the socket is resumed', async () => {
    const { accepted, client } = await socketPair();
    const reader = new ReadBuffer();
    const recorder = new Recorder();
    recorder.stopAfter = 1;
    reader.target = recorder;
    const socket = adoptAccepted(accepted, reader, 1 << 20)!;
    sockets.push(socket);
    client.write(Uint8Array.of(1));
    await until(() => recorder.received.length === 1);
    socket.pause();
    client.write(Uint8Array.of(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recorder.received).toEqual([1]);
    recorder.stopAfter = Infinity;
    socket.resume();
    await until(() => recorder.received.length === 2);
    expect(recorder.received).toEqual([1, 2]);
  });

  it('a socket without the handle this relies on is left alone (the caller reads through data events)', () => {
    const bare = new Socket();
    expect(adoptAccepted(bare, new ReadBuffer(), 1 << 20)).toBeUndefined();
    expect(READ_BUFFER_BYTES).toBe(65536);
  });
});
