import { expect } from 'vitest';
import { EpState } from '../../dat/endpoint.js';
import { MemAccess } from '../../dat/memory.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectDatError, expectNoEvent } from './helpers.js';
import { connectPair, createSide, listen, region, seg } from './pair.js';

/** A peer that vanishes becomes an error on the survivor within the budget, never a hang. */
export function registerPeerLossTests(h: Harness): void {
  for (const survivorRole of ['client', 'server'] as const) {
    const deadRole = survivorRole === 'client' ? 'server' : 'client';
    h.test(`peer loss: the surviving ${survivorRole} sees connection-broken; pending requests and receives flush in order`, ['fixture.crash'], async () => {
      const pair = await connectPair(h);
      const survivor = pair[survivorRole];
      const dead = pair[deadRole];
      const sink = region(survivor.pz, 64, MemAccess.LOCAL, 0);
      const receives = ['r0', 'r1', 'r2', 'r3'];
      receives.forEach((cookie, i) => survivor.ep.postRecv([seg(sink.lmr, i * 16, 16)], cookie));
      // No receive is posted at the peer, so these sends stall — and so does anything behind them.
      const src = region(survivor.pz, 64, MemAccess.LOCAL);
      const requests = ['s0', 's1', 's2'];
      for (const cookie of requests) survivor.ep.postSend([seg(src.lmr, 0, 16)], cookie);
      if (h.declares('rdma-read')) {
        const window = dead.pz.createRmr().bind(region(dead.pz, 64).lmr, 0, 64, MemAccess.REMOTE);
        survivor.ep.postRdmaRead([seg(src.lmr, 0, 16)], 'rd', window);
        requests.push('rd');
      }
      await expectNoEvent(survivor.request, 20, 'stalled sends must not complete before the loss');
      await h.crash(dead.ia);
      expect((await h.nextEvent(survivor.connect, 'connection-broken')).ep).toBe(survivor.ep);
      for (const cookie of requests) await h.nextCompletion(survivor.request, { cookie, status: DtoStatus.FLUSHED });
      for (const cookie of receives) await h.nextCompletion(survivor.recv, { cookie, op: 'recv', status: DtoStatus.FLUSHED });
      expect(survivor.ep.state).toBe(EpState.DISCONNECTED);
      expect(survivor.ia.counters().connections).toBe(0);
      await expectDatError(() => survivor.ep.postSend([seg(src.lmr, 0, 8)], 'after'), DatStatus.INVALID_STATE, 'ep');
      await expectNoEvent(survivor.request, 10, 'nothing beyond the flushed requests');
    });
  }

  h.test('peer loss breaks every connection to the lost IA', ['fixture.crash'], async () => {
    const first = await connectPair(h);
    const second = createSide(first.client.ia);
    const serverTwo = createSide(first.server.ia);
    second.ep.connect(first.server.ia.address, first.listener.psp.connQual, { timeoutMs: h.waitMs });
    (await h.nextEvent(first.listener.evd, 'connection-request')).request.accept(serverTwo.ep);
    await h.nextEvent(second.connect, 'connection-established');
    await h.crash(first.server.ia);
    await h.nextEvent(first.client.connect, 'connection-broken');
    await h.nextEvent(second.connect, 'connection-broken');
  });

  h.test('a server lost before it answers leaves the client with a connection error, not a hang', ['fixture.crash'], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const listener = await listen(serverIa);
    const client = createSide(clientIa);
    client.ep.connect(serverIa.address, listener.psp.connQual, { timeoutMs: Math.min(h.waitMs, 500) });
    await h.nextEvent(listener.evd, 'connection-request');
    await h.crash(serverIa);
    await h.nextEvent(client.connect, 'connection-timed-out', 'connection-unreachable', 'connection-broken', 'connection-non-peer-rejected');
    expect(client.ep.state).toBe(EpState.DISCONNECTED);
  });
}
