import { expect } from 'vitest';
import type { DtoCapability } from '../../dat/provider.js';
import { MemAccess, type Lmr, type RmrTriplet } from '../../dat/memory.js';
import { DtoStatus } from '../../dat/status.js';
import type { DtoOp } from '../../dat/events.js';
import type { Harness } from './harness.js';
import { expectNoEvent, expectSameBytes } from './helpers.js';
import { at, connectPair, region, seg, type Pair } from './pair.js';

/** A 2 KiB target buffer with `[256, 1280)` exposed for remote read and write. */
async function pairWithWindow(h: Harness) {
  const pair = await connectPair(h);
  const target = region(pair.server.pz, 2048);
  const window = pair.server.pz.createRmr().bind(target.lmr, 256, 1024, MemAccess.REMOTE);
  return { ...pair, target, window };
}

/** One-sided operations: placement inside a window, immediate data, ordering with sends. */
export function registerRdmaTests(h: Harness): void {
  h.test('RDMA write from a 3-segment iov lands at its offset in the window; nothing else changes', ['rdma-write'], async () => {
    const { client, server, target, window } = await pairWithWindow(h);
    const src = region(client.pz, 256, MemAccess.LOCAL);
    const expected = target.bytes.slice();
    client.ep.postRdmaWrite([seg(src.lmr, 0, 30), seg(src.lmr, 100, 50), seg(src.lmr, 200, 20)], 'w', at(window, 300, 100));
    await h.nextCompletion(client.request, { cookie: 'w', op: 'rdma-write', status: DtoStatus.SUCCESS, transferredLength: 100 });
    expected.set(src.bytes.subarray(0, 30), 300);
    expected.set(src.bytes.subarray(100, 150), 330);
    expected.set(src.bytes.subarray(200, 220), 380);
    expectSameBytes(target.bytes, expected, 'target buffer');
    expect(server.recv.size, 'an RDMA write raises no event at the target').toBe(0);
  });

  h.test('RDMA writes may fill the window exactly, from its first to its last byte', ['rdma-write'], async () => {
    const { client, target, window } = await pairWithWindow(h);
    const src = region(client.pz, 1024, MemAccess.LOCAL);
    const expected = target.bytes.slice();
    client.ep.postRdmaWrite([seg(src.lmr, 0, 1024)], 'all', window);
    await h.nextCompletion(client.request, { cookie: 'all', status: DtoStatus.SUCCESS, transferredLength: 1024 });
    expected.set(src.bytes, 256);
    expectSameBytes(target.bytes, expected, 'window written whole');
    client.ep.postRdmaWrite([seg(src.lmr, 0, 1)], 'last', at(window, 1279, 1));
    await h.nextCompletion(client.request, { cookie: 'last', status: DtoStatus.SUCCESS, transferredLength: 1 });
    expect(target.bytes[1279]).toBe(src.bytes[0]);
  });

  h.test('RDMA read at an offset in the window scatters into a 3-segment iov; nothing else changes', ['rdma-read'], async () => {
    const { client, target, window } = await pairWithWindow(h);
    const before = target.bytes.slice();
    const dst = region(client.pz, 512, MemAccess.LOCAL, 0x77);
    client.ep.postRdmaRead([seg(dst.lmr, 10, 40), seg(dst.lmr, 100, 60), seg(dst.lmr, 300, 28)], 'r', at(window, 1000, 128));
    await h.nextCompletion(client.request, { cookie: 'r', op: 'rdma-read', status: DtoStatus.SUCCESS, transferredLength: 128 });
    const expected = new Uint8Array(512).fill(0x77);
    expected.set(before.subarray(1000, 1040), 10);
    expected.set(before.subarray(1040, 1100), 100);
    expected.set(before.subarray(1100, 1128), 300);
    expectSameBytes(dst.bytes, expected, 'local buffer after the read');
    expectSameBytes(target.bytes, before, 'target buffer (a read changes nothing)');
  });

  h.test('1 MiB RDMA write and read round trip', ['rdma-write', 'rdma-read'], async () => {
    const pair = await connectPair(h);
    const n = Math.min(1024 * 1024, pair.client.ia.query().limits.maxRdmaSize);
    const target = region(pair.server.pz, n, MemAccess.ALL, 0);
    const window = pair.server.pz.createRmr().bind(target.lmr, 0, n, MemAccess.REMOTE);
    const src = region(pair.client.pz, n, MemAccess.LOCAL);
    const back = region(pair.client.pz, n, MemAccess.LOCAL, 0);
    pair.client.ep.postRdmaWrite([seg(src.lmr, 0, n)], 'w', window);
    pair.client.ep.postRdmaRead([seg(back.lmr, 0, n)], 'r', window);
    await h.nextCompletion(pair.client.request, { cookie: 'w', status: DtoStatus.SUCCESS, transferredLength: n });
    await h.nextCompletion(pair.client.request, { cookie: 'r', status: DtoStatus.SUCCESS, transferredLength: n });
    expectSameBytes(target.bytes, src.bytes, 'written');
    expectSameBytes(back.bytes, src.bytes, 'read back');
  });

  h.test('RDMA write with immediate: the value and length arrive, the data is visible, no receive is consumed', ['rdma-write-immediate'], async () => {
    const { client, server, target, window } = await pairWithWindow(h);
    const posted = region(server.pz, 16, MemAccess.LOCAL, 0);
    server.ep.postRecv([seg(posted.lmr, 0, 16)], 'still-there');
    const src = region(client.pz, 64, MemAccess.LOCAL);
    for (const [i, immediate] of [0, 0xffffffff, 0x12345678].entries()) {
      client.ep.postRdmaWrite([seg(src.lmr, i, 48)], `w${i}`, at(window, 512 + i, 48), { immediate });
      await h.nextCompletion(client.request, { cookie: `w${i}`, op: 'rdma-write-immediate', status: DtoStatus.SUCCESS, transferredLength: 48 });
      const doorbell = await h.nextCompletion(server.recv, { op: 'recv-immediate', status: DtoStatus.SUCCESS, transferredLength: 48 });
      expect(doorbell.immediate).toBe(immediate);
      expect(doorbell.ep).toBe(server.ep);
      expect(doorbell.cookie).toBeUndefined();
      expectSameBytes(target.bytes.subarray(512 + i, 560 + i), src.bytes.subarray(i, 48 + i), 'data visible at the doorbell');
    }
    client.ep.postSend([seg(src.lmr, 0, 16)], 'proof');
    await h.nextCompletion(server.recv, { cookie: 'still-there', op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 16 });
    expectSameBytes(posted.bytes, src.bytes.subarray(0, 16), 'the receive posted before the immediates');
  });

  h.test('a 0-byte RDMA write with immediate rings the doorbell alone', ['rdma-write-immediate'], async () => {
    const { client, server, target, window } = await pairWithWindow(h);
    const before = target.bytes.slice();
    client.ep.postRdmaWrite([], 'bell', at(window, 256, 0), { immediate: 42 });
    await h.nextCompletion(client.request, { cookie: 'bell', status: DtoStatus.SUCCESS, transferredLength: 0 });
    const doorbell = await h.nextCompletion(server.recv, { op: 'recv-immediate', transferredLength: 0 });
    expect(doorbell.immediate).toBe(42);
    expectSameBytes(target.bytes, before, 'target buffer');
  });

  h.test('an RDMA write is visible at the target when a send posted after it arrives', ['rdma-write'], async () => {
    const { client, server, target, window } = await pairWithWindow(h);
    const src = region(client.pz, 1024, MemAccess.LOCAL);
    const note = region(server.pz, 8, MemAccess.LOCAL, 0);
    server.ep.postRecv([seg(note.lmr, 0, 8)], 'note');
    client.ep.postRdmaWrite([seg(src.lmr, 0, 1024)], 'data', window);
    client.ep.postSend([seg(src.lmr, 0, 8)], 'notify');
    await h.nextCompletion(server.recv, { cookie: 'note', status: DtoStatus.SUCCESS });
    expectSameBytes(target.bytes.subarray(256, 1280), src.bytes, 'written data when the notification arrived');
  });

  h.test('completions of mixed requests arrive in post order', [], async () => {
    const pair = await pairWithWindow(h);
    const { client, server, window } = pair;
    const src = region(client.pz, 64, MemAccess.LOCAL);
    const sink = region(server.pz, 64 * 4, MemAccess.LOCAL, 0);
    for (let i = 0; i < 4; i++) server.ep.postRecv([seg(sink.lmr, i * 64, 64)], `r${i}`);
    const posted = postMixed(h, pair, src.lmr, window);
    for (const [cookie, op] of posted) await h.nextCompletion(client.request, { cookie, op, status: DtoStatus.SUCCESS });
    await expectNoEvent(client.request, 10, 'no completion beyond those posted');
  });
}

/** Sends interleaved with every optional DTO the provider declares; returns [cookie, op] in post order. */
function postMixed(h: Harness, pair: Pair, lmr: Lmr, window: RmrTriplet): [string, DtoOp][] {
  const { ep } = pair.client;
  const ops: [DtoCapability | 'send', DtoOp][] = [
    ['send', 'send'],
    ['rdma-write', 'rdma-write'],
    ['send', 'send'],
    ['rdma-read', 'rdma-read'],
    ['rdma-write-immediate', 'rdma-write-immediate'],
    ['send', 'send'],
    ['rdma-write', 'rdma-write'],
    ['rdma-read', 'rdma-read'],
    ['send', 'send'],
  ];
  const posted: [string, DtoOp][] = [];
  for (const [i, [needs, op]] of ops.entries()) {
    if (needs !== 'send' && !h.declares(needs)) continue;
    const cookie = `${op}#${i}`;
    const iov = [seg(lmr, 0, 32)];
    const remote = at(window, 256 + i * 32, 32);
    if (op === 'send') ep.postSend(iov, cookie);
    else if (op === 'rdma-read') ep.postRdmaRead(iov, cookie, remote);
    else ep.postRdmaWrite(iov, cookie, remote, op === 'rdma-write-immediate' ? { immediate: i } : {});
    posted.push([cookie, op]);
  }
  return posted;
}
