import { expect } from 'vitest';
import { MemAccess } from '../../dat/memory.js';
import { DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectSameBytes } from './helpers.js';
import { at, connectPair, region, seg } from './pair.js';

/**
 * `localCompletion`: a send or write may complete once its source may be reused, before the target
 * confirms it. Completions still come in post order, the data still arrives in order, and an error
 * the target finds is never lost: it is the request's completion, or the connection breaks.
 */
export function registerLocalCompletionTests(h: Harness): void {
  h.test('localCompletion: writes complete in post order beside a plain one, and every byte lands', ['rdma-write'], async () => {
    const { client, server } = await connectPair(h);
    const target = region(server.pz, 1024, MemAccess.ALL, 0);
    const window = server.pz.createRmr().bind(target.lmr, 0, 1024, MemAccess.REMOTE_WRITE);
    const src = region(client.pz, 1024, MemAccess.LOCAL);
    client.ep.postRdmaWrite([seg(src.lmr, 0, 300)], 'local 1', at(window, 0, 300), { localCompletion: true });
    client.ep.postRdmaWrite([seg(src.lmr, 300, 300)], 'plain', at(window, 300, 300));
    client.ep.postRdmaWrite([seg(src.lmr, 600, 400)], 'local 2', at(window, 600, 400), { localCompletion: true, suppressCompletion: false });
    for (const [cookie, length] of [['local 1', 300], ['plain', 300], ['local 2', 400]] as const) {
      await h.nextCompletion(client.request, { cookie, status: DtoStatus.SUCCESS, transferredLength: length });
    }
    // A local completion does not say the bytes are there yet; a plain write after them does.
    client.ep.postRdmaWrite([seg(src.lmr, 1000, 24)], 'fence', at(window, 1000, 24));
    await h.nextCompletion(client.request, { cookie: 'fence', status: DtoStatus.SUCCESS, transferredLength: 24 });
    expectSameBytes(target.bytes, src.bytes, 'target after the writes');
  });

  h.test('localCompletion: a send completes and arrives whole in its receive', [], async () => {
    const { client, server } = await connectPair(h);
    const into = region(server.pz, 256, MemAccess.LOCAL, 0);
    const src = region(client.pz, 256, MemAccess.LOCAL);
    server.ep.postRecv([seg(into.lmr, 0, 256)], 'r');
    client.ep.postSend([seg(src.lmr, 0, 256)], 's', { localCompletion: true });
    await h.nextCompletion(client.request, { cookie: 's', op: 'send', status: DtoStatus.SUCCESS, transferredLength: 256 });
    await h.nextCompletion(server.recv, { cookie: 'r', op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 256 });
    expectSameBytes(into.bytes, src.bytes, 'received');
  });

  h.test('localCompletion: a write the target refuses is reported, by its completion or by the connection breaking', ['rdma-write'], async () => {
    const { client, server } = await connectPair(h);
    const target = region(server.pz, 64, MemAccess.ALL, 0);
    const window = server.pz.createRmr().bind(target.lmr, 0, 64, MemAccess.REMOTE_READ);
    const src = region(client.pz, 64, MemAccess.LOCAL);
    // The window grants read only: the target must refuse the write.
    client.ep.postRdmaWrite([seg(src.lmr, 0, 64)], 'refused', window, { localCompletion: true });
    const done = await h.nextEvent(client.request, 'dto-completion');
    expect(done.cookie).toBe('refused');
    if (done.status === DtoStatus.SUCCESS) {
      // Completed before the target looked: the refusal must break the connection.
      const lost = await h.nextEvent(client.connect, 'connection-broken');
      expect(lost.reason, 'the broken connection says why').toMatch(/refused/);
    } else {
      expect(done.status).toBe(DtoStatus.REMOTE_ACCESS);
    }
    expectSameBytes(target.bytes, new Uint8Array(64), 'target after the refused write');
  });
}
