// The 'peer-memory' extension: each connection carries two zeroed regions of shared memory, one
// per direction, that both ends reach by load and store (the client's outbound is the server's
// inbound and the other way round), of the size the client's IA chose; `notify` rings the peer's
// doorbell, and pollers run with the IA's progress (its engine's polls and a consumer's polled
// dequeue) until removed. An IA with `peerMemoryBytes` 0 does not offer the extension.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DatError, DatStatus, DtoStatus, type Endpoint, type InterfaceAdapter, type PeerMemory, type PeerRegions } from '@dapl/core';
import { shmProvider, type ShmIa } from '../src/index.js';
import { connectSides, openSide, type Side } from './support/pair.js';

const peerThread = fileURLToPath(new URL('./fixtures/peer-memory-peer.mjs', import.meta.url));
/** The Int32 index of a doorbell's sleeping flag (doorbell.ts). */
const SLEEPING = 1;

const opened: InterfaceAdapter[] = [];
afterEach(async () => {
  for (const ia of opened.splice(0)) await ia.close();
});

/** A client and a server endpoint, connected, on two IAs of this thread with these parameters. */
async function connectedPair(client: Record<string, unknown> = {}, server: Record<string, unknown> = client, logger?: pino.Logger) {
  const jobKey = randomBytes(32);
  const sides = [await openSide(jobKey, client, opened, { logger }), await openSide(jobKey, server, opened)] as const;
  await connectSides(...sides);
  return sides;
}

function peerMemory(ia: InterfaceAdapter): PeerMemory {
  const extension = ia.extension('peer-memory');
  if (extension === undefined) throw new Error(`${ia.address} offers no peer memory`);
  return extension;
}

const words = (bytes: Uint8Array): Int32Array => new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);

function expectDatError(call: () => unknown, status: DatStatus, argument: string): void {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DatError);
  expect(thrown).toMatchObject({ status, argument });
}

/** Resolves once `condition` holds, looked at every millisecond (a bound of 30 s fails the test). */
async function until(condition: () => boolean): Promise<void> {
  for (const end = performance.now() + 30_000; !condition(); ) {
    if (performance.now() > end) throw new Error('the condition did not come true within 30 s');
    await sleep(1);
  }
}

/** `promise`, or a failure naming `what` if it has not settled within 30 s. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within 30 s`)), 30_000)));
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** One send from `from` to `to`, received: the engines of both IAs have polled meanwhile. */
async function exchange(from: Side, to: Side, cookie: number): Promise<void> {
  to.ep.postRecv(to.iov, cookie);
  from.ep.postSend(from.iov, cookie);
  expect(await to.evds.recv.wait({ timeoutMs: 30_000 })).toMatchObject({ cookie, status: DtoStatus.SUCCESS });
  expect(await from.evds.request.wait({ timeoutMs: 30_000 })).toMatchObject({ cookie, status: DtoStatus.SUCCESS });
}

describe('shm: the peer-memory extension', () => {
  it('is listed, and gives both ends zeroed regions of `bytes` bytes, one end\'s outbound the other\'s inbound', async () => {
    expect(shmProvider.capabilities.extensions).toContain('peer-memory');
    const [client, server] = await connectedPair();
    const regions: PeerRegions[] = [];
    for (const s of [client, server]) {
      expect(s.ia.query().extensions).toContain('peer-memory');
      const peer = peerMemory(s.ia);
      expect(peer.bytes).toBe(8192);
      const r = peer.regions(s.ep)!;
      expect(r).toBeDefined();
      // One object per connection, not one per call.
      expect(peer.regions(s.ep)).toBe(r);
      for (const view of [r.outbound, r.inbound]) {
        expect(view).toBeInstanceOf(Uint8Array);
        expect(view.buffer).toBeInstanceOf(SharedArrayBuffer);
        expect(view.length).toBe(8192);
        expect(view.every((b) => b === 0)).toBe(true);
      }
      regions.push(r);
    }
    const [c, s] = regions;
    const last = 8192 / 4 - 1;
    Atomics.store(words(c.outbound), 0, 0x1234_5678);
    Atomics.store(words(c.outbound), last, -7);
    expect(Atomics.load(words(s.inbound), 0)).toBe(0x1234_5678);
    expect(Atomics.load(words(s.inbound), last)).toBe(-7);
    Atomics.store(words(s.outbound), 0, 42);
    Atomics.store(words(s.outbound), last, 43);
    expect(Atomics.load(words(c.inbound), 0)).toBe(42);
    expect(Atomics.load(words(c.inbound), last)).toBe(43);
    // The two directions do not overlap.
    expect(Atomics.load(words(c.outbound), 0)).toBe(0x1234_5678);
    expect(Atomics.load(words(s.outbound), last)).toBe(43);
  });

  it('gives no regions before a connection, keeps them after a disconnect, and none once the endpoint is freed', async () => {
    const [client, server] = await connectedPair();
    const peer = peerMemory(client.ia);
    const unconnected = client.ia.createEp(client.ia.createPz(), { recv: client.ia.createEvd(), request: client.ia.createEvd(), connect: client.ia.createEvd() });
    expect(peer.regions(unconnected)).toBeUndefined();
    const regions = peer.regions(client.ep);
    client.ep.disconnect();
    expect((await client.evds.connect.wait({ timeoutMs: 30_000 })).type).toBe('connection-disconnected');
    expect(peer.regions(client.ep)).toBe(regions);
    // A notify on a connection that is gone does nothing.
    peer.notify(client.ep);
    peer.notify(unconnected);
    client.ep.free();
    expect(peer.regions(client.ep)).toBeUndefined();
    peer.notify(client.ep);
    expect((await server.evds.connect.wait({ timeoutMs: 30_000 })).type).toBe('connection-disconnected');
  });

  it('rounds peerMemoryBytes up to 64; the server takes the size of the client\'s memory, and none when the client has none', async () => {
    const [client, server] = await connectedPair({ peerMemoryBytes: 100 }, {});
    expect(peerMemory(client.ia).bytes).toBe(128);
    expect(peerMemory(server.ia).bytes).toBe(8192);
    for (const s of [client, server]) {
      const r = peerMemory(s.ia).regions(s.ep)!;
      expect([r.outbound.length, r.inbound.length]).toEqual([128, 128]);
    }
    const [without, withSome] = await connectedPair({ peerMemoryBytes: 0 }, {});
    expect(peerMemory(withSome.ia).regions(withSome.ep)).toBeUndefined();
    // The IA with none does not offer the extension; the provider still lists it (an IA offers it by default).
    expect(without.ia.extension('peer-memory')).toBeUndefined();
    expect(without.ia.query().extensions).not.toContain('peer-memory');
    expect(shmProvider.capabilities.extensions).toContain('peer-memory');
    await expect(shmProvider.openIa({ parameters: { peerMemoryBytes: 1024 * 1024 + 64 } })).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER });
  });

  it('refuses an endpoint of another IA or a non-endpoint (INVALID_HANDLE) and a poller that is not a function (INVALID_PARAMETER)', async () => {
    const [client, server] = await connectedPair();
    const peer = peerMemory(client.ia);
    for (const ep of [server.ep, {}, undefined, 'ep'] as unknown as Endpoint[]) {
      expectDatError(() => peer.regions(ep), DatStatus.INVALID_HANDLE, 'ep');
      expectDatError(() => peer.notify(ep), DatStatus.INVALID_HANDLE, 'ep');
    }
    for (const poll of [undefined, 1, {}, 'poll'] as unknown as (() => boolean)[]) expectDatError(() => peer.addPoller(poll), DatStatus.INVALID_PARAMETER, 'poll');
  });

  it('runs a poller with the engine\'s polls and a polled dequeue, and no more once it is removed', async () => {
    const [client, server] = await connectedPair({ spin: 'on', spinUs: 1000 });
    const peer = peerMemory(client.ia);
    let calls = 0;
    const remove = peer.addPoller(() => {
      calls++;
      return false;
    });
    await exchange(server, client, 1);
    expect(calls).toBeGreaterThan(0);
    // A consumer that spins on an empty queue polls the connections, and the pollers with them.
    const before = calls;
    expect(client.evds.recv.dequeue()).toBeUndefined();
    expect(calls).toBe(before + 1);
    remove();
    remove();
    const removedAt = calls;
    await exchange(server, client, 2);
    await exchange(client, server, 3);
    expect(client.evds.recv.dequeue()).toBeUndefined();
    expect(calls).toBe(removedAt);
  });

  it('removes a poller that throws, logs it, and goes on polling the others and the connections', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const [client, server] = await connectedPair({ spin: 'on', spinUs: 1000 }, {}, pino({ level: 'error' }, sink));
    const peer = peerMemory(client.ia);
    let thrown = 0;
    peer.addPoller(() => {
      thrown++;
      throw new Error('a broken poller');
    });
    let calls = 0;
    peer.addPoller(() => {
      calls++;
      return false;
    });
    await exchange(server, client, 1);
    expect(thrown).toBe(1);
    const seen = calls;
    await exchange(client, server, 2);
    expect(thrown).toBe(1);
    expect(calls).toBeGreaterThan(seen);
    expect(lines.join('')).toContain('a broken poller');
  });

  it('wakes the sleeping engine of an IA that does not spin on notify, whose poller then sees the word written (one thread)', async () => {
    const [client, server] = await connectedPair({ spin: 'off' });
    const peers = [peerMemory(client.ia), peerMemory(server.ia)];
    const [c, s] = [peers[0].regions(client.ep)!, peers[1].regions(server.ep)!];
    let seen: (value: number) => void = () => {};
    const got = new Promise<number>((resolve) => (seen = resolve));
    peers[1].addPoller(() => {
      const value = Atomics.load(words(s.inbound), 0);
      if (value === 0) return false;
      seen(value);
      return true;
    });
    // The server's engine sleeps once its doorbell's flag is up (it does not spin: at once when idle).
    await until(() => (server.ia as ShmIa).progress.doorbell.sleeping);
    Atomics.store(words(c.outbound), 0, 99);
    peers[0].notify(client.ep);
    expect(await within(got, "the server's poller seeing the word")).toBe(99);
  });

  it('wakes the sleeping engine of a peer thread on notify, whose poller then sees the word written; and the other way round', async () => {
    const jobKey = randomBytes(32);
    const server = await openSide(jobKey, { spin: 'off' }, opened);
    const listen = server.ia.createEvd();
    const psp = await server.ia.createPspAny(listen);
    const worker = new Worker(peerThread, { workerData: { jobKey, address: server.ia.address, connQual: psp.connQual, peerDoorbell: (server.ia as ShmIa).progress.doorbell.buffer } });
    let closing = false;
    const ended = new Promise<number>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => (closing ? resolve(code) : reject(new Error(`the peer thread ended with code ${code}`))));
    });
    ended.catch(() => undefined);
    /** `promise`, unless the peer thread fails first. */
    const orFailure = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, ended.then(() => promise)]);
    try {
      const request = await orFailure(listen.wait({ timeoutMs: 30_000 }));
      if (request.type !== 'connection-request') throw new Error(request.type);
      request.request.accept(server.ep);
      expect((await orFailure(server.evds.connect.wait({ timeoutMs: 30_000 }))).type).toBe('connection-established');
      const [{ doorbell }] = (await orFailure(once(worker, 'message'))) as [{ doorbell: SharedArrayBuffer }];
      const peerBell = new Int32Array(doorbell);
      const peer = peerMemory(server.ia);
      const regions = peer.regions(server.ep)!;
      let seen: (word: number) => void = () => {};
      let last = 0;
      peer.addPoller(() => {
        const word = Atomics.load(words(regions.inbound), 0);
        if (word === last) return false;
        last = word;
        seen(word);
        return true;
      });
      for (let round = 1; round <= 3; round++) {
        // The peer's engine sleeps: only the doorbell can wake it. It answers once ours sleeps too.
        await orFailure(until(() => Atomics.load(peerBell, SLEEPING) !== 0));
        const answer = new Promise<number>((resolve) => (seen = resolve));
        Atomics.store(words(regions.outbound), 0, round * 10);
        peer.notify(server.ep);
        expect(await orFailure(within(answer, "the peer thread's answer"))).toBe(round * 10 + 1);
      }
      closing = true;
      worker.postMessage('close');
      expect(await ended).toBe(0);
    } finally {
      if (!closing) await worker.terminate();
    }
  }, 60_000);
});
