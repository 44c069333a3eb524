// Where a tcp stream or IA ends at an awkward moment: inside a SEND's payload, while a PSP's
// listener is still starting; and the keepalive delay the kernel is given.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { DatStatus, DtoStatus, MemAccess, type DatEvent, type EventDispatcher } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { tcpProvider } from '../src/index.js';
import { keepAliveDelayMs, resolveTcpParameters } from '../src/params.js';
import { encodeFrame, FrameType, HEADER_SIZE } from '../src/wire/index.js';
import { RawClient } from './raw-client.js';

const next = (evd: EventDispatcher): Promise<DatEvent> => evd.wait({ timeoutMs: 5_000 });

describe('tcp: a stream or an IA ending at an awkward moment', () => {
  it('a connection lost inside a SEND\'s payload flushes the receive it was filling, then the others, in post order', async () => {
    const jobKey = randomBytes(32);
    const ia = await tcpProvider.openIa({ jobKey });
    try {
      const listenEvd = ia.createEvd();
      const psp = await ia.createPspAny(listenEvd);
      const evd = ia.createEvd();
      const pz = ia.createPz();
      const ep = ia.createEp(pz, { recv: evd, request: evd, connect: evd });
      const lmr = pz.registerLmr(new Uint8Array(4096), MemAccess.LOCAL);
      ep.postRecv([{ lmr, offset: 0, length: 2048 }], 'first');
      ep.postRecv([{ lmr, offset: 2048, length: 2048 }], 'second');
      const raw = await RawClient.open(ia.address, psp.connQual);
      await raw.handshake(jobKey, psp.connQual);
      const request = await next(listenEvd);
      expect(request.type).toBe('connection-request');
      if (request.type === 'connection-request') request.request.accept(ep);
      expect((await next(evd)).type).toBe('connection-established');
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
