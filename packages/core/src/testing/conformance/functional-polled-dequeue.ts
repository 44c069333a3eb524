import { expect } from 'vitest';
import { MemAccess } from '../../dat/memory.js';
import { DtoStatus } from '../../dat/status.js';
import type { DatEvent } from '../../dat/events.js';
import type { Harness } from './harness.js';
import { expectSameBytes } from './helpers.js';
import { connectPair, region, seg } from './pair.js';

/** Dequeues a spinning consumer may make before the test calls the provider's claim false. */
const SPIN_LIMIT = 1_000_000;

/**
 * `dequeuePollUs`: where it is above 0, `evd.dequeue()` on an empty queue drives the provider's
 * progress (as uDAPL's dat_evd_dequeue polls the CQ), so a consumer spinning on it, with no turn of
 * the event loop or of the microtask queue, gets its completions. Where it is 0 completions come on
 * their own, and the same exchange completes through `wait`.
 */
export function registerPolledDequeueTests(h: Harness): void {
  h.test('dequeuePollUs: a consumer spinning on dequeue gets its receive where the provider says it can, through wait where not', [], async () => {
    const { client, server } = await connectPair(h);
    const pollUs = server.ia.query().dequeuePollUs;
    expect(Number.isInteger(pollUs) && pollUs >= 0, `dequeuePollUs is a count of µs, got ${pollUs}`).toBe(true);
    const into = region(server.pz, 96, MemAccess.LOCAL, 0);
    const src = region(client.pz, 96, MemAccess.LOCAL);
    server.ep.postRecv([seg(into.lmr, 0, 96)], 'r');
    client.ep.postSend([seg(src.lmr, 0, 96)], 's');
    if (pollUs === 0) {
      await h.nextCompletion(server.recv, { cookie: 'r', op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 96 });
    } else {
      // No await in this loop: only dequeue itself can make the provider move.
      let event: DatEvent | undefined;
      for (let i = 0; i < SPIN_LIMIT && event === undefined; i++) event = server.recv.dequeue();
      expect(event, 'the receive completed while the consumer spun on dequeue').toMatchObject({ type: 'dto-completion', cookie: 'r', op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 96 });
    }
    expectSameBytes(into.bytes, src.bytes, 'received');
    await h.nextCompletion(client.request, { cookie: 's', op: 'send', status: DtoStatus.SUCCESS, transferredLength: 96 });
  });
}
