import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { type DatEvent, type EventDispatcher, type InterfaceAdapter, type PublicServicePoint } from '@dapl/core';
import { isFrameError } from '@dapl/core/provider-kit';
import { tcpProvider } from '../src/index.js';
import { RawClient } from './raw-client.js';
import { acceptProof, decodeChallenge, decodeHello, helloProof, encodeChallenge, encodeFrame, encodeHello, encodeReject, FrameType, HEADER_SIZE, newNonce, rejectProof } from '../src/wire/index.js';

const jobKey = randomBytes(32);

describe('tcp: connections are authenticated before any connection-request event', () => {
  const opened: InterfaceAdapter[] = [];
  afterEach(async () => {
    for (const ia of opened.splice(0)) await ia.close();
  });

  async function server(parameters: Record<string, unknown> = {}): Promise<{ ia: InterfaceAdapter; evd: EventDispatcher; psp: PublicServicePoint }> {
    const ia = await tcpProvider.openIa({ jobKey, parameters });
    opened.push(ia);
    const evd = ia.createEvd();
    return { ia, evd, psp: await ia.createPspAny(evd) };
  }

  /** No connection request arrives at `evd` within `ms`. */
  async function expectNoRequest(evd: EventDispatcher, ms = 500): Promise<void> {
    const e = await evd.wait({ timeoutMs: ms }).catch((err: Error) => err);
    expect(e).toBeInstanceOf(Error);
    expect((e as { status?: string }).status).toBe('DAT_TIMEOUT_EXPIRED');
  }

  it('a client IA with the wrong job key: no CR at the server; the client is turned away', async () => {
    const s = await server();
    const client = await tcpProvider.openIa({ jobKey: randomBytes(32) });
    opened.push(client);
    const cevd = client.createEvd();
    const ep = client.createEp(client.createPz(), { recv: cevd, request: cevd, connect: cevd });
    ep.connect(s.ia.address, s.psp.connQual, { timeoutMs: 2000 });
    await expectNoRequest(s.evd);
    const outcome = await cevd.wait({ timeoutMs: 3000 });
    expect(['connection-non-peer-rejected', 'connection-timed-out']).toContain(outcome.type);
    expect(s.ia.counters().connections).toBe(0);
  });

  it('a raw client with no secret (a made-up proof): dropped, no CR', async () => {
    const s = await server();
    const raw = await RawClient.open(s.ia.address, s.psp.connQual);
    await raw.read(40);
    raw.write(encodeFrame({ type: FrameType.HELLO }, encodeHello({ clientNonce: newNonce(), proof: new Uint8Array(32), connQual: s.psp.connQual, address: 'x', privateData: new Uint8Array(0) })));
    await raw.closed;
    await expectNoRequest(s.evd, 200);
  });

  it('a raw client that sends garbage: dropped, no CR', async () => {
    const s = await server();
    const raw = await RawClient.open(s.ia.address, s.psp.connQual);
    raw.write(randomBytes(4096));
    await raw.closed;
    await expectNoRequest(s.evd, 200);
  });

  it('a raw client that says nothing: dropped after handshakeTimeoutMs, no CR', async () => {
    const s = await server({ handshakeTimeoutMs: 200 });
    const raw = await RawClient.open(s.ia.address, s.psp.connQual);
    await raw.closed;
    await expectNoRequest(s.evd, 100);
  });

  it('a client proving the right key for another conn-qual: dropped, no CR', async () => {
    const s = await server();
    const raw = await RawClient.open(s.ia.address, s.psp.connQual);
    await raw.handshake(jobKey, s.psp.connQual === 65_535 ? 1 : s.psp.connQual + 1);
    await raw.closed;
    await expectNoRequest(s.evd, 200);
  });

  it('after all of that the PSP still serves a client of the job', async () => {
    const s = await server();
    for (let i = 0; i < 5; i++) {
      const raw = await RawClient.open(s.ia.address, s.psp.connQual);
      raw.write(randomBytes(100));
      await raw.closed;
    }
    const client = await tcpProvider.openIa({ jobKey });
    opened.push(client);
    const cevd = client.createEvd();
    const ep = client.createEp(client.createPz(), { recv: cevd, request: cevd, connect: cevd });
    ep.connect(s.ia.address, s.psp.connQual, { privateData: new Uint8Array([42]) });
    const cr = await s.evd.wait({ timeoutMs: 2000 });
    expect(cr.type).toBe('connection-request');
    if (cr.type !== 'connection-request') return;
    expect([...cr.request.privateData]).toEqual([42]);
    const sep = s.ia.createEp(s.ia.createPz(), { recv: s.evd, request: s.evd, connect: s.evd });
    cr.request.accept(sep);
    expect((await cevd.wait({ timeoutMs: 2000 })).type).toBe('connection-established');
  });

  it('connections waiting to authenticate are capped (tcp.maxUnauthenticated): one beyond is closed at once and counted; the job\'s clients still get in', async () => {
    const s = await server({ maxUnauthenticated: 3 });
    const held: { raw: RawClient; challenge: Buffer }[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = await RawClient.open(s.ia.address, s.psp.connQual);
      const header = await raw.read(HEADER_SIZE); // the server's challenge: it has admitted this one
      held.push({ raw, challenge: await raw.read(header.readUInt32LE(4)) });
    }
    const beyond = await RawClient.open(s.ia.address, s.psp.connQual);
    await beyond.closed;
    expect(s.ia.counters().refusedUnauthenticated).toBe(1);
    // The held ones authenticate (they are the job's): each frees its place and raises its CR.
    for (const { raw, challenge } of held) {
      const decoded = decodeChallenge(challenge);
      if (isFrameError(decoded)) throw new Error(decoded.message);
      const clientNonce = newNonce();
      const proof = helloProof(jobKey, decoded.serverNonce, clientNonce);
      raw.write(encodeFrame({ type: FrameType.HELLO }, encodeHello({ clientNonce, proof, connQual: s.psp.connQual, address: '127.0.0.1', privateData: new Uint8Array(0) })));
    }
    for (let i = 0; i < 3; i++) expect((await s.evd.wait({ timeoutMs: 5000 })).type).toBe('connection-request');
    const late = await RawClient.open(s.ia.address, s.psp.connQual);
    await late.handshake(jobKey, s.psp.connQual);
    expect((await s.evd.wait({ timeoutMs: 5000 })).type).toBe('connection-request');
    expect(s.ia.counters().refusedUnauthenticated).toBe(1);
    for (const raw of [...held.map((h) => h.raw), late]) raw.destroy();
  });

  describe('the server\'s answer is authenticated too', () => {
    /** A fake server: CHALLENGE, read the HELLO, answer with REJECT carrying `proof` and private data [7]. */
    async function fakeServer(proofFor: (serverNonce: Uint8Array, clientNonce: Uint8Array) => Uint8Array): Promise<{ port: number; close: () => void }> {
      const server = createServer((socket) => {
        const serverNonce = newNonce();
        socket.write(encodeFrame({ type: FrameType.CHALLENGE }, encodeChallenge(serverNonce)));
        let input = Buffer.alloc(0);
        socket.on('data', (chunk: Buffer) => {
          input = Buffer.concat([input, chunk]);
          if (input.length < HEADER_SIZE || input.length < HEADER_SIZE + input.readUInt32LE(4)) return;
          const hello = decodeHello(input.subarray(HEADER_SIZE, HEADER_SIZE + input.readUInt32LE(4)));
          if (isFrameError(hello)) throw new Error(hello.message);
          socket.end(encodeFrame({ type: FrameType.REJECT }, encodeReject({ proof: proofFor(serverNonce, hello.clientNonce), privateData: Uint8Array.of(7) })));
        });
        socket.on('error', () => {});
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { port: (server.address() as AddressInfo).port, close: () => server.close() };
    }

    async function connectTo(port: number): Promise<DatEvent> {
      const client = await tcpProvider.openIa({ jobKey });
      opened.push(client);
      const cevd = client.createEvd();
      const ep = client.createEp(client.createPz(), { recv: cevd, request: cevd, connect: cevd });
      ep.connect('127.0.0.1', port, { timeoutMs: 2000 });
      return cevd.wait({ timeoutMs: 3000 });
    }

    it('a REJECT without the job key\'s proof is not taken for the server\'s: the client sees no rejection and no private data of it', async () => {
      const fake = await fakeServer(() => new Uint8Array(32));
      try {
        const outcome = await connectTo(fake.port);
        expect(outcome).toMatchObject({ type: 'connection-non-peer-rejected' });
        expect((outcome as { reason?: string }).reason).toContain('could not prove it holds the job key (REJECT)');
        expect((outcome as { privateData?: Uint8Array }).privateData).toBeUndefined();
      } finally {
        fake.close();
      }
    });

    it('a REJECT proved with the job key is a rejection, with its private data', async () => {
      const fake = await fakeServer((serverNonce, clientNonce) => rejectProof(jobKey, serverNonce, clientNonce));
      try {
        const outcome = await connectTo(fake.port);
        expect(outcome).toMatchObject({ type: 'connection-peer-rejected' });
        expect([...((outcome as { privateData?: Uint8Array }).privateData ?? [])]).toEqual([7]);
      } finally {
        fake.close();
      }
    });

    it('an ACCEPT\'s proof does not pass for a REJECT\'s', async () => {
      const fake = await fakeServer((serverNonce, clientNonce) => acceptProof(jobKey, serverNonce, clientNonce));
      try {
        expect(await connectTo(fake.port)).toMatchObject({ type: 'connection-non-peer-rejected' });
      } finally {
        fake.close();
      }
    });
  });
});
