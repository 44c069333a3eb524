// Where a tcp stream or IA ends at an awkward moment: inside a SEND's payload, while a PSP's
// listener is still starting, while input is paused (the probes that would see it); and the
// keepalive delay the kernel is given.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { DatStatus, DtoStatus, MemAccess, type DatEvent, type EventDispatcher } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { tcpProvider } from '../src/index.js';
import { keepAliveDelayMs, resolveTcpParameters } from '../src/params.js';
import { decodeHeader, encodeFrame, FrameFlag, FrameType, HEADER_SIZE } from '../src/wire/index.js';
import { rawPeer } from './raw-client.js';

const next = (evd: EventDispatcher): Promise<DatEvent> => evd.wait({ timeoutMs: 5_000 });

/** `body` against a raw peer of a fresh IA with `parameters` (closed afterwards); `before` as `rawPeer`'s. */
async function withRawPeer(parameters: Record<string, unknown>, before: Parameters<typeof rawPeer>[2], body: (peer: Awaited<ReturnType<typeof rawPeer>>) => Promise<void>): Promise<void> {
  const jobKey = randomBytes(32);
  const ia = await tcpProvider.openIa({ jobKey, parameters });
  try {
    await body(await rawPeer(ia, jobKey, before));
  } finally {
    await ia.close();
  }
}

describe('tcp: a stream or an IA ending at an awkward moment', () => {
  it('a connection lost inside a SEND\'s payload flushes the receive it was filling, then the others, in post order', async () => {
    const before: Parameters<typeof rawPeer>[2] = (ep, pz) => {
      const lmr = pz.registerLmr(new Uint8Array(4096), MemAccess.LOCAL);
      ep.postRecv([{ lmr, offset: 0, length: 2048 }], 'first');
      ep.postRecv([{ lmr, offset: 2048, length: 2048 }], 'second');
    };
    await withRawPeer({}, before, async ({ raw, evd }) => {
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
    });
  });

  it('a connection whose input is paused probes its peer with an ACK that acknowledges nothing, stops once it flows again, and goes on as before', async () => {
    await withRawPeer({ keepAliveMs: 300 }, undefined, async ({ raw, ep, pz, evd }) => {
      // Three SENDs of 40 KiB and no receive posted: the endpoint holds 64 KiB and reads no more.
      const payloads = [1, 2, 3].map((n) => new Uint8Array(40 * 1024).fill(n));
      for (const [i, payload] of payloads.entries()) raw.write(encodeFrame({ type: FrameType.SEND, seq: i + 1, flags: i === 2 ? FrameFlag.ACK_REQUEST : 0 }, payload));
      for (let i = 0; i < 2; i++) expect(decodeHeader(await raw.read(HEADER_SIZE, 3000), { maxPayload: 0 })).toMatchObject({ type: FrameType.ACK, flags: 0, ack: 0, payloadLength: 0 });

      const lmr = pz.registerLmr(new Uint8Array(3 * 40 * 1024), MemAccess.LOCAL);
      for (let i = 0; i < 3; i++) ep.postRecv([{ lmr, offset: i * 40 * 1024, length: 40 * 1024 }], `recv-${i}`);
      for (let i = 0; i < 3; i++) expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: `recv-${i}`, status: DtoStatus.SUCCESS, transferredLength: 40 * 1024 });
      for (let i = 0; i < 3; i++) expect(lmr.bytes.subarray(i * 40 * 1024, (i + 1) * 40 * 1024).every((b) => b === i + 1)).toBe(true);
      // What comes now is the acknowledgement asked for (after any probe already on its way), then nothing.
      let ack = decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 0 });
      while ('ack' in ack && ack.ack === 0) ack = decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 0 });
      expect(ack).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 3 });
      await expect(raw.read(1, 900)).rejects.toThrow(/expected 1 bytes, have 0/);
      raw.destroy();
    });
  });

  it("a probe carries the acknowledgement of what was carried out before the stall, asked for or not", async () => {
    const before: Parameters<typeof rawPeer>[2] = (ep, pz) => ep.postRecv([{ lmr: pz.registerLmr(new Uint8Array(16), MemAccess.LOCAL), offset: 0, length: 16 }], 'one');
    await withRawPeer({ keepAliveMs: 200 }, before, async ({ raw, evd }) => {
      // SEND 1 fills the one receive without asking for an ACK; 2 to 4 (40 KiB each) stall the input.
      raw.write(encodeFrame({ type: FrameType.SEND, seq: 1 }, new Uint8Array(16).fill(9)));
      for (let seq = 2; seq <= 4; seq++) raw.write(encodeFrame({ type: FrameType.SEND, seq }, new Uint8Array(40 * 1024)));
      expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: 'one', status: DtoStatus.SUCCESS });
      expect(decodeHeader(await raw.read(HEADER_SIZE, 3000), { maxPayload: 0 })).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 1 });
      raw.destroy();
    });
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
