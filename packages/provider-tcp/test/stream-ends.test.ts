// Where a tcp stream or IA ends at an awkward moment: inside a SEND's payload, while a PSP's
// listener is still starting, while input is paused (the probes that would see it); and the
// keepalive delay the kernel is given.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createRootLogger, DatStatus, DtoStatus, MemAccess, type DatEvent, type Endpoint, type EventDispatcher, type InterfaceAdapter, type ProtectionZone } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { tcpProvider } from '../src/index.js';
import { keepAliveDelayMs, resolveTcpParameters } from '../src/params.js';
import { decodeHeader, encodeFrame, FrameFlag, FrameType, HEADER_SIZE } from '../src/wire/index.js';
import { RawClient } from './raw-client.js';

const next = (evd: EventDispatcher): Promise<DatEvent> => evd.wait({ timeoutMs: 5_000 });

/** A raw client connected to an endpoint of `ia`, which `before` may post receives on before it accepts. */
async function rawPeer(ia: InterfaceAdapter, jobKey: Uint8Array, before: (ep: Endpoint, pz: ProtectionZone) => void = () => {}) {
  const listenEvd = ia.createEvd();
  const psp = await ia.createPspAny(listenEvd);
  const evd = ia.createEvd();
  const pz = ia.createPz();
  const ep = ia.createEp(pz, { recv: evd, request: evd, connect: evd });
  before(ep, pz);
  const raw = await RawClient.open(ia.address, psp.connQual);
  await raw.handshake(jobKey, psp.connQual);
  const request = await next(listenEvd);
  expect(request.type).toBe('connection-request');
  if (request.type === 'connection-request') request.request.accept(ep);
  expect((await next(evd)).type).toBe('connection-established');
  return { raw, ep, pz, evd };
}

describe('tcp: a stream or an IA ending at an awkward moment', () => {
  it('a connection lost inside a SEND\'s payload flushes the receive it was filling, then the others, in post order', async () => {
    const jobKey = randomBytes(32);
    const ia = await tcpProvider.openIa({ jobKey });
    try {
      const { raw, evd } = await rawPeer(ia, jobKey, (ep, pz) => {
        const lmr = pz.registerLmr(new Uint8Array(4096), MemAccess.LOCAL);
        ep.postRecv([{ lmr, offset: 0, length: 2048 }], 'first');
        ep.postRecv([{ lmr, offset: 2048, length: 2048 }], 'second');
      });
      // SEND 1 of 1,000 bytes: 500 of them arrive, then the peer is gone.
      const frame = encodeFrame({ type: FrameType.SEND, seq: 1 }, new Uint8Array(1000).fill(1));
      raw.write(frame.subarray(0, HEADER_SIZE + 500));
      await new Promise((r) => setTimeout(r, 50));
      raw.socket.destroy();
      const flushed: unknown[] = [];
      let broken = false;
      while (flushed.length < 2) {
        const e = await next(evd);
        if (e.type === 'connection-broken') broken = true;
        else if (e.type === 'dto-completion') {
          expect(e.status).toBe(DtoStatus.FLUSHED);
          flushed.push(e.cookie);
        }
      }
      expect(flushed).toEqual(['first', 'second']);
      if (!broken) expect((await next(evd)).type).toBe('connection-broken');
    } finally {
      await ia.close();
    }
  });

  it('a connection whose input is paused probes its peer with an ACK that acknowledges nothing, and then goes on as before', async () => {
    const jobKey = randomBytes(32);
    const ia = await tcpProvider.openIa({ jobKey, parameters: { keepAliveMs: 300 } });
    try {
      const { raw, ep, pz, evd } = await rawPeer(ia, jobKey);
      const accept = await raw.read(HEADER_SIZE);
      await raw.read(accept.readUInt32LE(4));
      // Three SENDs of 40 KiB and no receive posted: the endpoint holds 64 KiB and reads no more.
      const payloads = [1, 2, 3].map((n) => new Uint8Array(40 * 1024).fill(n));
      for (const [i, payload] of payloads.entries()) raw.write(encodeFrame({ type: FrameType.SEND, seq: i + 1, flags: i === 2 ? FrameFlag.ACK_REQUEST : 0 }, payload));
      const probe = decodeHeader(await raw.read(HEADER_SIZE, 3000), { maxPayload: 0 });
      expect(probe).toMatchObject({ type: FrameType.ACK, flags: 0, ack: 0, payloadLength: 0 });

      const lmr = pz.registerLmr(new Uint8Array(3 * 40 * 1024), MemAccess.LOCAL);
      for (let i = 0; i < 3; i++) ep.postRecv([{ lmr, offset: i * 40 * 1024, length: 40 * 1024 }], `recv-${i}`);
      for (let i = 0; i < 3; i++) expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: `recv-${i}`, status: DtoStatus.SUCCESS, transferredLength: 40 * 1024 });
      for (let i = 0; i < 3; i++) expect(lmr.bytes.subarray(i * 40 * 1024, (i + 1) * 40 * 1024).every((b) => b === i + 1)).toBe(true);
      // Probes stop with the input flowing again; what comes now is the acknowledgement asked for.
      let ack = decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 0 });
      while (!('ack' in ack) || ack.ack === 0) ack = decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 0 });
      expect(ack).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 3 });
      raw.destroy();
    } finally {
      await ia.close();
    }
  });

  it('after its DISCONNECT an endpoint drops what the peer still sends (never acknowledged, so flushed at the peer) and writes nothing more', async () => {
    const jobKey = randomBytes(32);
    const logged: string[] = [];
    const ia = await tcpProvider.openIa({ jobKey, logger: createRootLogger({ level: 'debug', destination: { write: (line: string) => logged.push(line) } }) });
    try {
      const { raw, ep, pz, evd } = await rawPeer(ia, jobKey);
      const lmr = pz.registerLmr(new Uint8Array(1024), MemAccess.LOCAL);
      ep.postRecv([{ lmr, offset: 0, length: 1024 }], 'posted');
      const accept = await raw.read(HEADER_SIZE);
      await raw.read(accept.readUInt32LE(4));
      ep.disconnect();
      expect(decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 0 })).toMatchObject({ type: FrameType.DISCONNECT });
      // The peer had not seen it yet: a SEND that asks for its acknowledgement.
      raw.write(encodeFrame({ type: FrameType.SEND, seq: 1, flags: FrameFlag.ACK_REQUEST }, new Uint8Array(10).fill(7)));
      await new Promise((r) => setTimeout(r, 100));
      raw.destroy();
      const events = [await next(evd), await next(evd)];
      expect(events).toContainEqual(expect.objectContaining({ type: 'dto-completion', cookie: 'posted', status: DtoStatus.FLUSHED }));
      expect(events).toContainEqual(expect.objectContaining({ type: 'connection-disconnected', reason: 'the connection closed' }));
      expect(lmr.bytes.every((b) => b === 0)).toBe(true);
      // Before, the ACK it owed was written after the half-close and failed the socket ('write after end').
      expect(logged.filter((line) => line.includes('connection failed'))).toEqual([]);
    } finally {
      await ia.close();
    }
  });

  it('a PSP whose listener was still starting when the IA closed is refused, and nothing listens on its port', async () => {
    const ia = await tcpProvider.openIa({ jobKey: randomBytes(32) });
    const evd = ia.createEvd();
    const port = await freePort();
    const pending = ia.createPsp(port, evd);
    await ia.close();
    await expect(pending).rejects.toMatchObject({ name: 'DatError', status: DatStatus.INVALID_HANDLE });
    // The port is free again: a listener of our own gets it.
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: '127.0.0.1', port, exclusive: true }, resolve);
    });
    await new Promise((r) => probe.close(r));
  });

  it('gives the kernel whole seconds of keepalive delay, rounded up (Node would truncate 1-999 ms to the two-hour default)', () => {
    const delay = (keepAliveMs: number) => keepAliveDelayMs(resolveTcpParameters({ keepAliveMs }));
    expect([delay(0), delay(1), delay(500), delay(1000), delay(1500), delay(5000)]).toEqual([0, 1000, 1000, 1000, 2000, 5000]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
