import { describe, expect, it } from 'vitest';
import { DtoStatus } from '@dapl/core';
import { nextEvent, simPairRunner } from '@dapl/core/testing';
import { createLapiProvider } from '../src/index.js';

const runPair = simPairRunner(createLapiProvider);

const RETRANSMIT = 100_000;

describe('lapi send that finds no posted receive', () => {
  it('is resent at the first retransmission after the receive is posted, and arrives intact', async () => {
    let postedAt = 0;
    let arrivedAt = 0;
    let senderDone!: () => void;
    const senderFinished = new Promise<void>((resolve) => (senderDone = resolve));
    const result = await runPair({ retransmitNs: RETRANSMIT }, 64, async (side) => {
      if (side.rank === 0) {
        side.buf.set([9, 8, 7, 6], 0);
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 4 }], 's0');
        try {
          const done = await nextEvent(side.request);
          expect(done.type === 'dto-completion' && [done.cookie, done.status]).toEqual(['s0', DtoStatus.SUCCESS]);
        } finally {
          senderDone();
        }
      } else {
        // Past the first retransmission, well before the second.
        await side.kernel.sleep(1, 1.5 * RETRANSMIT);
        postedAt = side.clock.nowNs;
        side.ep.postRecv([{ lmr: side.lmr, offset: 0, length: 16 }], 'r0');
        const got = await nextEvent(side.recv);
        expect(got.type === 'dto-completion' && [got.cookie, got.status, got.transferredLength]).toEqual(['r0', DtoStatus.SUCCESS, 4]);
        expect(Array.from(side.buf.subarray(0, 4))).toEqual([9, 8, 7, 6]);
        arrivedAt = side.clock.nowNs;
        await senderFinished;
      }
    });
    expect(result.outcome).toBe('completed');
    expect(arrivedAt).toBeGreaterThan(postedAt);
    // Resent within one retransmission period of the post (plus one message's flight), not at once.
    expect(arrivedAt).toBeLessThan(postedAt + RETRANSMIT + 20_000);
  });
});
