import { expect } from 'vitest';
import { EpState } from '../../dat/endpoint.js';
import type { ConnectionEventType } from '../../dat/events.js';
import { MemAccess } from '../../dat/memory.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { bytesToArray, expectDatError, expectNoEvent } from './helpers.js';
import { connectPair, createSide, expectRoundTrip, listen, region, seg, type Pair, type Side } from './pair.js';

const REJECT_DATA = new Uint8Array([0xde, 0xad]);
const FAILED: ConnectionEventType[] = ['connection-non-peer-rejected', 'connection-unreachable', 'connection-timed-out', 'connection-peer-rejected'];

/** Post `n` receives of 16 bytes on `side`; cookies are `${tag}0` … */
function postReceives(side: Side, n: number, tag: string): void {
  const mem = region(side.pz, 16 * n, MemAccess.LOCAL, 0);
  for (let i = 0; i < n; i++) side.ep.postRecv([seg(mem.lmr, 16 * i, 16)], `${tag}${i}`);
}

async function expectFlushedReceives(h: Harness, side: Side, n: number, tag: string): Promise<void> {
  for (let i = 0; i < n; i++) await h.nextCompletion(side.recv, { cookie: `${tag}${i}`, op: 'recv', status: DtoStatus.FLUSHED });
}

async function expectDisconnected(h: Harness, pair: Pair, initiator: 'client' | 'server'): Promise<void> {
  const { client, server } = pair;
  postReceives(client, 2, 'c');
  postReceives(server, 3, 's');
  pair[initiator].ep.disconnect();
  expect((await h.nextEvent(client.connect, 'connection-disconnected')).ep).toBe(client.ep);
  expect((await h.nextEvent(server.connect, 'connection-disconnected')).ep).toBe(server.ep);
  await expectFlushedReceives(h, client, 2, 'c');
  await expectFlushedReceives(h, server, 3, 's');
  expect(client.ep.state).toBe(EpState.DISCONNECTED);
  expect(server.ep.state).toBe(EpState.DISCONNECTED);
  expect(client.ia.counters().connections).toBe(0);
  expect(server.ia.counters().connections).toBe(0);
  const mem = region(client.pz, 8);
  await expectDatError(() => client.ep.postSend([seg(mem.lmr, 0, 8)], 'late'), DatStatus.INVALID_STATE, 'ep');
}

/** Establishing, refusing, timing out, tearing down and re-using connections. */
export function registerConnectionTests(h: Harness): void {
  h.test('connect / accept carries private data both ways and counts the connection', [], async () => {
    const { client, server } = await connectPair(h);
    expect(typeof client.ep.remoteAddress).toBe('string');
    expect(typeof server.ep.remoteAddress).toBe('string');
    expect(client.ia.counters().connections).toBe(1);
    expect(server.ia.counters().connections).toBe(1);
    await expectRoundTrip(h, client, server);
    await expectRoundTrip(h, server, client);
  });

  h.test('reject with private data: the client sees peer-rejected with it, its receives flush, and it can reset and retry', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const client = createSide(clientIa);
    const server = createSide(serverIa);
    const listener = await listen(serverIa);
    postReceives(client, 2, 'pre');
    client.ep.connect(serverIa.address, listener.psp.connQual, { privateData: new Uint8Array([7]), timeoutMs: h.waitMs });
    const cr = await h.nextEvent(listener.evd, 'connection-request');
    cr.request.reject(REJECT_DATA);
    const rejected = await h.nextEvent(client.connect, 'connection-peer-rejected');
    expect(rejected.ep).toBe(client.ep);
    expect(bytesToArray(rejected.privateData)).toEqual(bytesToArray(REJECT_DATA));
    await expectFlushedReceives(h, client, 2, 'pre');
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
    client.ep.reset();
    expect(client.ep.state).toBe(EpState.UNCONNECTED);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(server.ep);
    await h.nextEvent(server.connect, 'connection-established');
    await h.nextEvent(client.connect, 'connection-established');
    await expectRoundTrip(h, client, server);
  });

  h.test('connect to a conn-qual nobody listens on → non-peer-rejected or unreachable', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const { psp } = await listen(serverIa);
    const connQual = psp.connQual;
    psp.free();
    const client = createSide(clientIa);
    client.ep.connect(serverIa.address, connQual, { timeoutMs: h.waitMs });
    const event = await h.nextEvent(client.connect, 'connection-non-peer-rejected', 'connection-unreachable');
    expect(event.ep).toBe(client.ep);
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
  });

  h.test('connect to a closed IA fails with a connection error event', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const { psp } = await listen(serverIa);
    const { address } = serverIa;
    const connQual = psp.connQual;
    await serverIa.close();
    const client = createSide(clientIa);
    client.ep.connect(address, connQual, { timeoutMs: Math.min(h.waitMs, 1000) });
    await h.nextEvent(client.connect, ...FAILED);
  });

  h.test('a server that never answers: the client times out; a late accept leaves no live connection', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const client = createSide(clientIa);
    const server = createSide(serverIa);
    const listener = await listen(serverIa);
    postReceives(client, 1, 'pre');
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: 200 });
    const cr = await h.nextEvent(listener.evd, 'connection-request');
    expect((await h.nextEvent(client.connect, 'connection-timed-out')).ep).toBe(client.ep);
    await expectFlushedReceives(h, client, 1, 'pre');
    cr.request.accept(server.ep);
    const outcome = await h.nextEvent(server.connect);
    if (outcome.type === 'connection-established') {
      await h.nextEvent(server.connect, 'connection-broken', 'connection-disconnected');
    } else {
      expect(FAILED.concat(['connection-broken', 'connection-disconnected'])).toContain(outcome.type);
    }
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
  });

  h.test('a server IA closed right after accepting leaves the client with an ended connection, not a hang', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const client = createSide(clientIa);
    const server = createSide(serverIa);
    const listener = await listen(serverIa);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(server.ep);
    await serverIa.close();
    const outcome = await h.nextEvent(client.connect);
    if (outcome.type === 'connection-established') {
      await h.nextEvent(client.connect, 'connection-disconnected', 'connection-broken');
    } else {
      expect(FAILED.concat(['connection-broken', 'connection-disconnected'])).toContain(outcome.type);
    }
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
  });

  h.test('disconnect by the client: both sides see disconnected and their receives flush', [], async () => {
    await expectDisconnected(h, await connectPair(h), 'client');
  });

  h.test('disconnect by the server: both sides see disconnected and their receives flush', [], async () => {
    await expectDisconnected(h, await connectPair(h), 'server');
  });

  h.test('both sides disconnecting at once: each sees exactly one disconnected event', [], async () => {
    const { client, server } = await connectPair(h);
    client.ep.disconnect();
    server.ep.disconnect();
    await h.nextEvent(client.connect, 'connection-disconnected');
    await h.nextEvent(server.connect, 'connection-disconnected');
    await expectNoEvent(client.connect, 20, 'a second connection event at the client');
    await expectNoEvent(server.connect, 0, 'a second connection event at the server');
    expect(client.ia.counters().connections).toBe(0);
    expect(server.ia.counters().connections).toBe(0);
  });

  h.test('an abrupt disconnect ends the connection on both sides', [], async () => {
    const { client, server } = await connectPair(h);
    client.ep.disconnect({ abrupt: true });
    await h.nextEvent(client.connect, 'connection-disconnected', 'connection-broken');
    await h.nextEvent(server.connect, 'connection-disconnected', 'connection-broken');
  });

  h.test('disconnect before the connection is established ends the attempt', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const client = createSide(clientIa);
    const listener = await listen(serverIa);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    client.ep.disconnect();
    await h.nextEvent(client.connect, 'connection-disconnected', ...FAILED);
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
  });

  h.test('freeing a connected endpoint ends the connection at the peer', [], async () => {
    const { client, server } = await connectPair(h);
    postReceives(server, 1, 's');
    client.ep.free();
    await h.nextEvent(server.connect, 'connection-disconnected', 'connection-broken');
    await expectFlushedReceives(h, server, 1, 's');
  });

  h.test('reset() after a disconnect, then reconnect the same endpoints through the same PSP (traffic before and after)', [], async () => {
    const pair = await connectPair(h);
    const { client, server, listener } = pair;
    // Traffic on the first connection: the second must not carry its request numbering over.
    await expectRoundTrip(h, client, server, 'first');
    await expectRoundTrip(h, server, client, 'first back');
    client.ep.disconnect();
    await h.nextEvent(client.connect, 'connection-disconnected');
    await h.nextEvent(server.connect, 'connection-disconnected');
    client.ep.reset();
    server.ep.reset();
    expect(server.ep.state).toBe(EpState.UNCONNECTED);
    expect(server.ep.remoteAddress).toBeUndefined();
    client.ep.connect(server.ia.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(server.ep);
    await h.nextEvent(server.connect, 'connection-established');
    await h.nextEvent(client.connect, 'connection-established');
    await expectRoundTrip(h, client, server, 'again');
    await expectRoundTrip(h, server, client, 'back');
  });

  h.test('one PSP serves several connections, each carrying its own data', [], async () => {
    const first = await connectPair(h);
    const { server, listener } = first;
    const other = createSide(first.client.ia);
    const serverTwo = createSide(server.ia);
    other.ep.connect(server.ia.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(serverTwo.ep);
    await h.nextEvent(serverTwo.connect, 'connection-established');
    await h.nextEvent(other.connect, 'connection-established');
    await expectRoundTrip(h, other, serverTwo, 'second');
    await expectRoundTrip(h, first.client, server, 'first');
    expect(server.recv.size + serverTwo.recv.size).toBe(0);
  });

  h.test('freeing the PSP after accepting leaves the established connection working', [], async () => {
    const pair = await connectPair(h);
    pair.listener.psp.free();
    await expectRoundTrip(h, pair.client, pair.server, 'after-psp-free');
    await expectRoundTrip(h, pair.server, pair.client, 'back');
    expect(pair.client.ep.state).toBe(EpState.CONNECTED);
  });

  h.test('one EVD can serve every role of an endpoint', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const ce = clientIa.createEvd();
    const se = serverIa.createEvd();
    const cep = clientIa.createEp(clientIa.createPz(), { recv: ce, request: ce, connect: ce });
    const spz = serverIa.createPz();
    const sep = serverIa.createEp(spz, { recv: se, request: se, connect: se });
    const psp = await serverIa.createPspAny(se);
    const dst = region(spz, 8, MemAccess.LOCAL, 0);
    sep.postRecv([seg(dst.lmr, 0, 8)], 'r');
    cep.connect(serverIa.address, psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(se, 'connection-request')).request.accept(sep);
    await h.nextEvent(se, 'connection-established');
    await h.nextEvent(ce, 'connection-established');
    const src = region(cep.pz, 8);
    cep.postSend([seg(src.lmr, 0, 8)], 's');
    await h.nextCompletion(ce, { cookie: 's', status: DtoStatus.SUCCESS });
    await h.nextCompletion(se, { cookie: 'r', status: DtoStatus.SUCCESS, transferredLength: 8 });
    expect(Array.from(dst.bytes)).toEqual(Array.from(src.bytes));
    await expectNoEvent(ce, 10, 'nothing else on the client EVD');
  });
}
