import { expect } from 'vitest';
import { MemAccess, type RegisterableMemory } from '../../dat/memory.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectNoEvent, expectSameBytes, randomBytes } from './helpers.js';
import { connectPair, region, seg } from './pair.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/** Sends and receives: scatter / gather, sizes, order, and what happens without a fitting receive. */
export function registerSendTests(h: Harness): void {
  h.test('a 3-segment send lands in a 2-segment receive, in order, with the cookies given', [], async () => {
    const { client, server } = await connectPair(h);
    const src = region(client.pz, 64);
    const dst = region(server.pz, 128, MemAccess.LOCAL, 0xee);
    const before = dst.bytes.slice();
    const recvCookie = { which: 'recv' };
    const sendCookie = { which: 'send' };
    server.ep.postRecv([seg(dst.lmr, 10, 20), seg(dst.lmr, 64, 40)], recvCookie);
    client.ep.postSend([seg(src.lmr, 0, 5), seg(src.lmr, 40, 20), seg(src.lmr, 8, 25)], sendCookie);
    const sent = await h.nextCompletion(client.request, { op: 'send', status: DtoStatus.SUCCESS, transferredLength: 50 });
    expect(sent.cookie).toBe(sendCookie);
    expect(sent.ep).toBe(client.ep);
    const got = await h.nextCompletion(server.recv, { op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 50 });
    expect(got.cookie).toBe(recvCookie);
    expect(got.ep).toBe(server.ep);
    const message = new Uint8Array([...src.bytes.subarray(0, 5), ...src.bytes.subarray(40, 60), ...src.bytes.subarray(8, 33)]);
    const expected = before.slice();
    expected.set(message.subarray(0, 20), 10);
    expected.set(message.subarray(20, 50), 64);
    expectSameBytes(dst.bytes, expected, 'receive buffer (placed bytes and the bytes around them)');
  });

  h.test('an iov changed after its post is not used: the data goes where the post said, from where it said', [], async () => {
    const { client, server } = await connectPair(h);
    const src = region(client.pz, 64);
    const decoy = region(client.pz, 64, MemAccess.LOCAL, 0x11);
    const dst = region(server.pz, 64, MemAccess.LOCAL, 0);
    const other = region(server.pz, 64, MemAccess.LOCAL, 0);
    const recvIov = [seg(dst.lmr, 0, 32)];
    server.ep.postRecv(recvIov, 'recv');
    const sendSegment = { ...seg(src.lmr, 0, 32) } as { lmr: typeof src.lmr; offset: number; length: number };
    client.ep.postSend([sendSegment], 'send');
    // The arrays and segment objects are the caller's again: changing them changes nothing posted.
    recvIov[0] = seg(other.lmr, 8, 32);
    sendSegment.lmr = decoy.lmr;
    sendSegment.offset = 16;
    await h.nextCompletion(client.request, { op: 'send', status: DtoStatus.SUCCESS, transferredLength: 32 });
    await h.nextCompletion(server.recv, { op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 32 });
    expectSameBytes(dst.bytes.subarray(0, 32), src.bytes.subarray(0, 32), 'the posted receive, filled from the posted source');
    expect(other.bytes.every((b) => b === 0)).toBe(true);
  });

  h.test('a 0-byte send completes a receive with length 0', [], async () => {
    const { client, server } = await connectPair(h);
    const dst = region(server.pz, 16, MemAccess.LOCAL, 0x55);
    server.ep.postRecv([seg(dst.lmr, 0, 16)], 'r0');
    client.ep.postSend([], 's0');
    await h.nextCompletion(client.request, { cookie: 's0', op: 'send', status: DtoStatus.SUCCESS, transferredLength: 0 });
    await h.nextCompletion(server.recv, { cookie: 'r0', op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 0 });
    expect(dst.bytes.every((b) => b === 0x55)).toBe(true);
  });

  for (const size of [1, 4 * KIB, MIB]) {
    h.test(`a ${size}-byte send arrives intact`, [], async () => {
      const { client, server } = await connectPair(h);
      const n = Math.min(size, client.ia.query().limits.maxMessageSize, server.ia.query().limits.maxMessageSize);
      const src = region(client.pz, n, MemAccess.LOCAL);
      const dst = region(server.pz, n, MemAccess.LOCAL, 0);
      server.ep.postRecv([seg(dst.lmr, 0, n)], 'r');
      client.ep.postSend([seg(src.lmr, 0, n)], 's');
      await h.nextCompletion(client.request, { cookie: 's', status: DtoStatus.SUCCESS, transferredLength: n });
      await h.nextCompletion(server.recv, { cookie: 'r', status: DtoStatus.SUCCESS, transferredLength: n });
      expectSameBytes(dst.bytes, src.bytes, `${n}-byte message`);
    });
  }

  h.test('200 sends of varying length arrive in post order, each in the next receive', [], async () => {
    const count = 200;
    const { client, server } = await connectPair(h);
    const src = region(client.pz, count * 64, MemAccess.LOCAL);
    const dst = region(server.pz, count * 64, MemAccess.LOCAL, 0);
    for (let i = 0; i < count; i++) server.ep.postRecv([seg(dst.lmr, i * 64, 64)], i);
    for (let i = 0; i < count; i++) client.ep.postSend([seg(src.lmr, i * 64, 1 + (i % 64))], i);
    for (let i = 0; i < count; i++) await h.nextCompletion(client.request, { cookie: i, status: DtoStatus.SUCCESS, transferredLength: 1 + (i % 64) });
    for (let i = 0; i < count; i++) {
      const len = 1 + (i % 64);
      await h.nextCompletion(server.recv, { cookie: i, status: DtoStatus.SUCCESS, transferredLength: len });
      expectSameBytes(dst.bytes.subarray(i * 64, i * 64 + len), src.bytes.subarray(i * 64, i * 64 + len), `message ${i}`);
    }
  });

  h.test('a receive too small: LOCAL_LENGTH at the receiver, REMOTE_RESPONDER / LENGTH_ERROR at the sender', [], async () => {
    const { client, server } = await connectPair(h);
    const src = region(client.pz, 16, MemAccess.LOCAL);
    const dst = region(server.pz, 8, MemAccess.LOCAL, 0);
    server.ep.postRecv([seg(dst.lmr, 0, 8)], 'small');
    client.ep.postSend([seg(src.lmr, 0, 16)], 'big');
    await h.nextCompletion(server.recv, { cookie: 'small', op: 'recv', status: DtoStatus.LOCAL_LENGTH });
    await h.nextCompletion(client.request, { cookie: 'big', op: 'send', status: DtoStatus.REMOTE_RESPONDER, reason: DatStatus.LENGTH_ERROR });
  });

  h.test('a send waits for a receive to be posted, then completes', [], async () => {
    const { client, server } = await connectPair(h);
    const src = region(client.pz, 32, MemAccess.LOCAL);
    const dst = region(server.pz, 32, MemAccess.LOCAL, 0);
    client.ep.postSend([seg(src.lmr, 0, 32)], 'early');
    await expectNoEvent(client.request, 30, 'a send without a receive at the peer must not complete');
    server.ep.postRecv([seg(dst.lmr, 0, 32)], 'late');
    await h.nextCompletion(client.request, { cookie: 'early', status: DtoStatus.SUCCESS });
    await h.nextCompletion(server.recv, { cookie: 'late', status: DtoStatus.SUCCESS, transferredLength: 32 });
    expectSameBytes(dst.bytes, src.bytes, 'stalled message');
  });

  h.test('suppressCompletion: a successful send raises no event; the next signaled one does, in order', [], async () => {
    const { client, server } = await connectPair(h);
    const src = region(client.pz, 16, MemAccess.LOCAL);
    const dst = region(server.pz, 32, MemAccess.LOCAL, 0);
    server.ep.postRecv([seg(dst.lmr, 0, 16)], 'r-quiet');
    server.ep.postRecv([seg(dst.lmr, 16, 16)], 'r-loud');
    client.ep.postSend([seg(src.lmr, 0, 16)], 'quiet', { suppressCompletion: true });
    client.ep.postSend([seg(src.lmr, 0, 16)], 'loud');
    await h.nextCompletion(server.recv, { cookie: 'r-quiet', status: DtoStatus.SUCCESS, transferredLength: 16 });
    await h.nextCompletion(server.recv, { cookie: 'r-loud', status: DtoStatus.SUCCESS, transferredLength: 16 });
    // The quiet send's success is never reported: the first request event is the loud one's.
    await h.nextCompletion(client.request, { cookie: 'loud', status: DtoStatus.SUCCESS });
    await expectNoEvent(client.request, 30, 'a suppressed send that succeeded must raise no event');
    expectSameBytes(dst.bytes.subarray(0, 16), src.bytes, 'suppressed send');
  });

  h.test('suppressCompletion: a suppressed request that does not succeed is still reported (flushed)', [], async () => {
    const { client } = await connectPair(h);
    const src = region(client.pz, 16, MemAccess.LOCAL);
    // No receive at the server: the send stays outstanding until the disconnect flushes it.
    client.ep.postSend([seg(src.lmr, 0, 16)], 'quiet', { suppressCompletion: true });
    client.ep.disconnect();
    await h.nextCompletion(client.request, { cookie: 'quiet', status: DtoStatus.FLUSHED });
  });

  h.test('receives posted before the connection is established are used', [], async () => {
    const dst: { bytes?: Uint8Array } = {};
    const { client, server } = await connectPair(h, {
      beforeConnect: (_c, s) => {
        const r = region(s.pz, 16, MemAccess.LOCAL, 0);
        dst.bytes = r.bytes;
        s.ep.postRecv([seg(r.lmr, 0, 16)], 'pre');
      },
    });
    const src = region(client.pz, 16, MemAccess.LOCAL);
    client.ep.postSend([seg(src.lmr, 0, 16)], 's');
    await h.nextCompletion(server.recv, { cookie: 'pre', status: DtoStatus.SUCCESS, transferredLength: 16 });
    expectSameBytes(dst.bytes!, src.bytes, 'pre-posted receive');
  });

  h.test('receives land in every kind of registered memory', [], async () => {
    const { client, server } = await connectPair(h);
    const f64 = new Float64Array(8);
    const ab = new ArrayBuffer(40);
    const pooled = Buffer.alloc(24);
    const sab = new SharedArrayBuffer(24);
    const targets: [string, RegisterableMemory, Uint8Array][] = [
      ['Float64Array slice', f64.subarray(1, 5), new Uint8Array(f64.buffer, 8, 32)],
      ['DataView', new DataView(ab, 8, 24), new Uint8Array(ab, 8, 24)],
      ['ArrayBuffer', ab, new Uint8Array(ab)],
      ['Buffer', pooled, pooled],
      ['SharedArrayBuffer', sab, new Uint8Array(sab)],
    ];
    const src = region(client.pz, 64, MemAccess.LOCAL);
    for (const [name, memory, view] of targets) {
      const lmr = server.pz.registerLmr(memory, MemAccess.LOCAL);
      const n = Math.min(view.length, 24);
      server.ep.postRecv([seg(lmr, 0, n)], name);
      client.ep.postSend([seg(src.lmr, 0, n)], name);
      await h.nextCompletion(server.recv, { cookie: name, status: DtoStatus.SUCCESS, transferredLength: n });
      await h.nextCompletion(client.request, { cookie: name, status: DtoStatus.SUCCESS });
      expectSameBytes(view.subarray(0, n), src.bytes.subarray(0, n), name);
    }
  });

  h.test('random payloads of many sizes survive scatter into many receive segments', [], async () => {
    const { client, server } = await connectPair(h);
    const maxIov = Math.min(server.ep.attributes.maxRecvIov, 8);
    for (const size of [3, 17, 255, 1000, 9001]) {
      const payload = randomBytes(size);
      const src = client.pz.registerLmr(payload, MemAccess.LOCAL);
      const dst = region(server.pz, size, MemAccess.LOCAL, 0);
      const piece = Math.ceil(size / maxIov);
      const iov = [];
      for (let at = 0; at < size; at += piece) iov.push(seg(dst.lmr, at, Math.min(piece, size - at)));
      server.ep.postRecv(iov, size);
      client.ep.postSend([seg(src, 0, size)], size);
      await h.nextCompletion(server.recv, { cookie: size, status: DtoStatus.SUCCESS, transferredLength: size });
      await h.nextCompletion(client.request, { cookie: size, status: DtoStatus.SUCCESS });
      expectSameBytes(dst.bytes, payload, `${size} bytes in ${iov.length} segments`);
    }
  });
}
