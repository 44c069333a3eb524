import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type EventDispatcher, type InterfaceAdapter, type PublicServicePoint } from '@dapl/core';
import { tcpProvider } from '../src/index.js';
import { RawClient } from './raw-client.js';
import { encodeFrame, encodeHello, FrameType, newNonce } from '../src/wire/index.js';

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
});
