import { expect } from 'vitest';
import type { Endpoint } from '../../dat/endpoint.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import { MemAccess } from '../../dat/memory.js';
import type { ProtectionZone } from '../../dat/pz.js';
import type { SharedReceiveQueue } from '../../dat/srq.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectDatError, expectNoEvent, expectSameBytes, expectThrowsSync } from './helpers.js';
import { createSide, listen, region, seg, type Side } from './pair.js';

/** A server IA with one SRQ and one receive EVD shared by its endpoints, and `count` clients connected to it. */
interface SrqScene {
  readonly serverIa: InterfaceAdapter;
  readonly pz: ProtectionZone;
  readonly srq: SharedReceiveQueue;
  /** Receive completions (and the SRQ's events) of every server endpoint. */
  readonly recv: EventDispatcher;
  readonly servers: Endpoint[];
  readonly clients: Side[];
}

async function srqScene(h: Harness, count: number, maxRecvs = 16, lowWatermark = 0): Promise<SrqScene> {
  const [clientIa, serverIa] = await h.openPair();
  const pz = serverIa.createPz();
  const srq = serverIa.createSrq(pz, { maxRecvs, lowWatermark });
  const recv = serverIa.createEvd();
  const request = serverIa.createEvd();
  const listener = await listen(serverIa);
  const servers: Endpoint[] = [];
  const clients: Side[] = [];
  for (let i = 0; i < count; i++) {
    const connect = serverIa.createEvd();
    const ep = serverIa.createEp(pz, { recv, request, connect }, { srq });
    const client = createSide(clientIa);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(ep);
    await h.nextEvent(connect, 'connection-established');
    await h.nextEvent(client.connect, 'connection-established');
    servers.push(ep);
    clients.push(client);
  }
  return { serverIa, pz, srq, recv, servers, clients };
}

/** Send `length` random bytes from `client`; its completion is awaited. */
async function sendFrom(h: Harness, client: Side, cookie: string, length = 32): Promise<Uint8Array> {
  const src = region(client.pz, length, MemAccess.LOCAL);
  client.ep.postSend([seg(src.lmr, 0, length)], cookie);
  await h.nextCompletion(client.request, { cookie, op: 'send', status: DtoStatus.SUCCESS });
  return src.bytes;
}

/** DAT 2.0 shared receive queues: one pool of receives for many endpoints. */
export function registerSrqTests(h: Harness): void {
  h.test('SRQ: messages from several endpoints take the receives of one queue in post order', [], async () => {
    const s = await srqScene(h, 3);
    expect(s.serverIa.query().sharedReceiveQueues).toBe(true);
    const dst = region(s.pz, 6 * 32, MemAccess.LOCAL, 0);
    for (let i = 0; i < 6; i++) s.srq.postRecv([seg(dst.lmr, i * 32, 32)], `r${i}`);
    expect(s.srq.query()).toMatchObject({ maxRecvs: 16, posted: 6, endpoints: 3 });
    const order = [0, 2, 1, 1, 0, 2];
    for (let i = 0; i < order.length; i++) {
      const bytes = await sendFrom(h, s.clients[order[i]], `s${i}`);
      const got = await h.nextCompletion(s.recv, { cookie: `r${i}`, op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 32 });
      expect(got.ep).toBe(s.servers[order[i]]);
      expectSameBytes(dst.bytes.subarray(i * 32, i * 32 + 32), bytes, `message ${i} in receive ${i}`);
    }
    expect(s.srq.query().posted).toBe(0);
  });

  h.test('SRQ: a message that finds the queue empty waits for the next post to it', [], async () => {
    const s = await srqScene(h, 2);
    const src = region(s.clients[1].pz, 16, MemAccess.LOCAL);
    s.clients[1].ep.postSend([seg(src.lmr, 0, 16)], 'early');
    await expectNoEvent(s.recv, 30, 'no receive is posted');
    const dst = region(s.pz, 16, MemAccess.LOCAL, 0);
    s.srq.postRecv([seg(dst.lmr, 0, 16)], 'late');
    const got = await h.nextCompletion(s.recv, { cookie: 'late', status: DtoStatus.SUCCESS, transferredLength: 16 });
    expect(got.ep).toBe(s.servers[1]);
    await h.nextCompletion(s.clients[1].request, { cookie: 'early', status: DtoStatus.SUCCESS });
    expectSameBytes(dst.bytes, src.bytes, 'the waiting message');
  });

  h.test('SRQ: srq-limit-reached fires once when fewer receives than the watermark stay posted; setLowWatermark re-arms it', [], async () => {
    const s = await srqScene(h, 2, 8, 3);
    const dst = region(s.pz, 8 * 16, MemAccess.LOCAL, 0);
    for (let i = 0; i < 5; i++) s.srq.postRecv([seg(dst.lmr, i * 16, 16)], `r${i}`);
    await sendFrom(h, s.clients[0], 'a', 16);
    await h.nextCompletion(s.recv, { cookie: 'r0' });
    await sendFrom(h, s.clients[1], 'b', 16);
    await h.nextCompletion(s.recv, { cookie: 'r1' }); // 3 posted: not below 3
    await sendFrom(h, s.clients[1], 'c', 16);
    const limit = await h.nextEvent(s.recv, 'srq-limit-reached', 'dto-completion');
    const completion = limit.type === 'srq-limit-reached' ? await h.nextCompletion(s.recv, { cookie: 'r2' }) : limit;
    const event = limit.type === 'srq-limit-reached' ? limit : await h.nextEvent(s.recv, 'srq-limit-reached');
    expect(completion.cookie).toBe('r2');
    expect(event.srq).toBe(s.srq);
    expect(event.posted).toBe(2);
    expect(event.ep).toBe(s.servers[1]);
    await sendFrom(h, s.clients[0], 'd', 16);
    await h.nextCompletion(s.recv, { cookie: 'r3' });
    await expectNoEvent(s.recv, 20, 'the event fires once per arming');
    s.srq.setLowWatermark(2);
    expect(s.srq.query().lowWatermark).toBe(2);
    await sendFrom(h, s.clients[0], 'e', 16);
    const again = await h.nextEvent(s.recv, 'srq-limit-reached', 'dto-completion');
    const rest = await h.nextEvent(s.recv, 'srq-limit-reached', 'dto-completion');
    expect(new Set([again.type, rest.type])).toEqual(new Set(['srq-limit-reached', 'dto-completion']));
    expect(s.srq.query().posted).toBe(0);
  });

  h.test('SRQ: the queue events go to its own EVD when given one', [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const pz = serverIa.createPz();
    const events = serverIa.createEvd();
    const srq = serverIa.createSrq(pz, { maxRecvs: 4, lowWatermark: 1, evd: events });
    const server = serverIa.createEp(pz, { recv: serverIa.createEvd(), request: serverIa.createEvd(), connect: serverIa.createEvd() }, { srq });
    const listener = await listen(serverIa);
    const client = createSide(clientIa);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(listener.evd, 'connection-request')).request.accept(server);
    await h.nextEvent(client.connect, 'connection-established');
    const dst = region(pz, 8, MemAccess.LOCAL, 0);
    srq.postRecv([seg(dst.lmr, 0, 8)], 'only');
    await sendFrom(h, client, 'x', 8);
    await h.nextCompletion(server.evds.recv, { cookie: 'only', status: DtoStatus.SUCCESS });
    expect((await h.nextEvent(events, 'srq-limit-reached')).posted).toBe(0);
    server.free();
    expect((await h.nextEvent(events, 'srq-ep-drained')).ep).toBe(server);
    srq.free();
  });

  h.test('SRQ: refusals — postRecv on its endpoints, bad options, another PZ, a full queue', [], async () => {
    const s = await srqScene(h, 1, 2);
    const dst = region(s.pz, 16, MemAccess.LOCAL, 0);
    const ep = s.servers[0];
    expect(ep.srq).toBe(s.srq);
    expect(expectThrowsSync(() => ep.postRecv([seg(dst.lmr, 0, 8)], 'direct'), DatStatus.INVALID_STATE).message).toMatch(/shared receive queue/);
    const ia = s.serverIa;
    await expectDatError(() => ia.createSrq(s.pz, { maxRecvs: 0 }), DatStatus.INVALID_PARAMETER, 'options.maxRecvs');
    await expectDatError(() => ia.createSrq(s.pz, { maxRecvs: ia.query().limits.maxRecvDtos + 1 }), DatStatus.INVALID_PARAMETER, 'options.maxRecvs');
    await expectDatError(() => ia.createSrq(s.pz, { maxRecvs: 4, lowWatermark: 5 }), DatStatus.INVALID_PARAMETER, 'options.lowWatermark');
    await expectDatError(() => ia.createSrq(s.pz, { maxRecvs: 4, maxRecv: 2 } as never), DatStatus.INVALID_PARAMETER, 'options.maxRecv');
    await expectDatError(() => ia.createSrq({} as never, { maxRecvs: 4 }), DatStatus.INVALID_HANDLE, 'pz');
    await expectDatError(() => s.srq.setLowWatermark(3), DatStatus.INVALID_PARAMETER, 'lowWatermark');
    const otherPz = ia.createPz();
    await expectDatError(() => ia.createEp(otherPz, ep.evds, { srq: s.srq }), DatStatus.INVALID_PARAMETER, 'attributes.srq');
    await expectDatError(() => ia.createEp(s.pz, ep.evds, { srq: {} as never }), DatStatus.INVALID_HANDLE, 'attributes.srq');
    s.srq.postRecv([seg(dst.lmr, 0, 8)], 'a');
    s.srq.postRecv([seg(dst.lmr, 8, 8)], 'b');
    expectThrowsSync(() => s.srq.postRecv([seg(dst.lmr, 0, 8)], 'c'), DatStatus.QUEUE_FULL);
    await expectDatError(() => s.srq.postRecv([seg(region(otherPz, 8).lmr, 0, 8)], 'wrong zone'), DatStatus.PROTECTION_VIOLATION, 'iov');
  });

  h.test('SRQ: free — refused while endpoints use it; a disconnect leaves its receives posted and reports the endpoint drained', [], async () => {
    const s = await srqScene(h, 2);
    const dst = region(s.pz, 32, MemAccess.LOCAL, 0);
    s.srq.postRecv([seg(dst.lmr, 0, 16)], 'kept-0');
    s.srq.postRecv([seg(dst.lmr, 16, 16)], 'kept-1');
    await expectDatError(() => s.srq.free(), DatStatus.INVALID_STATE, 'srq');
    s.clients[0].ep.disconnect();
    await h.nextEvent(s.servers[0].evds.connect, 'connection-disconnected');
    expect((await h.nextEvent(s.recv, 'srq-ep-drained')).ep).toBe(s.servers[0]);
    expect(s.srq.query().posted).toBe(2);
    // The other endpoint still takes the queue's receives, oldest first.
    await sendFrom(h, s.clients[1], 'after', 16);
    expect((await h.nextCompletion(s.recv, { cookie: 'kept-0', status: DtoStatus.SUCCESS })).ep).toBe(s.servers[1]);
    s.servers[0].free();
    await expectDatError(() => s.srq.free(), DatStatus.INVALID_STATE, 'srq');
    s.servers[1].free();
    expect((await h.nextEvent(s.recv, 'srq-ep-drained')).ep).toBe(s.servers[1]);
    expect(s.srq.query().endpoints).toBe(0);
    s.srq.free();
    expect(s.srq.freed).toBe(true);
    await expectDatError(() => s.srq.free(), DatStatus.INVALID_HANDLE, 'srq');
    await expectDatError(() => s.srq.postRecv([seg(dst.lmr, 0, 8)], 'late'), DatStatus.INVALID_HANDLE, 'srq');
    await expectDatError(() => s.serverIa.createEp(s.pz, s.servers[1].evds, { srq: s.srq }), DatStatus.INVALID_HANDLE, 'attributes.srq');
  });
}
