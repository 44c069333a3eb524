import { describe, expect, it } from 'vitest';
import { DtoStatus, EpState } from '@dapl/core';
import { nextEvent, simPairRunner } from '@dapl/core/testing';
import { createIbProvider } from '../src/index.js';

const runPair = simPairRunner(createIbProvider);

const TIMER = 1_000;
const FINITE = { rnrRetries: 2, rnrTimerNs: TIMER };

describe('ib receiver-not-ready', () => {
  it('a send with no receive through 2 retries completes RECEIVER_NOT_READY and breaks the connection at both ends', async () => {
    const seen: string[] = [];
    const result = await runPair(FINITE, 64, async (side) => {
      if (side.rank === 0) {
        side.ep.postRecv([{ lmr: side.lmr, offset: 32, length: 16 }], 'r0');
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 16 }], 's0');
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 16 }], 's1');
        const first = await nextEvent(side.request);
        expect(first.type === 'dto-completion' && [first.cookie, first.status]).toEqual(['s0', DtoStatus.RECEIVER_NOT_READY]);
        // Not before the retry budget: two RNR timer periods after the first attempt.
        expect(side.clock.nowNs).toBeGreaterThan(2 * TIMER);
        const second = await nextEvent(side.request);
        expect(second.type === 'dto-completion' && [second.cookie, second.status]).toEqual(['s1', DtoStatus.FLUSHED]);
        const flushedRecv = await nextEvent(side.recv);
        expect(flushedRecv.type === 'dto-completion' && [flushedRecv.cookie, flushedRecv.status]).toEqual(['r0', DtoStatus.FLUSHED]);
      }
      const lost = await nextEvent(side.connect);
      seen.push(`${side.rank}:${lost.type}`);
      expect(side.ep.state).toBe(EpState.DISCONNECTED);
    });
    expect(result.outcome).toBe('completed');
    expect(seen.sort()).toEqual(['0:connection-broken', '1:connection-broken']);
  });

  it('a receive posted within the retry window lets the send complete at the next retry', async () => {
    let arrivedAt = 0;
    let sentAt = 0;
    const result = await runPair(FINITE, 64, async (side) => {
      if (side.rank === 0) {
        side.buf.set([9, 8, 7, 6], 0);
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 4 }], 's0');
        const done = await nextEvent(side.request);
        expect(done.type === 'dto-completion' && [done.cookie, done.status]).toEqual(['s0', DtoStatus.SUCCESS]);
        sentAt = side.clock.nowNs;
      } else {
        // Past the first retry, well within the second.
        await side.kernel.sleep(1, 1.5 * TIMER);
        side.ep.postRecv([{ lmr: side.lmr, offset: 0, length: 16 }], 'r0');
        const got = await nextEvent(side.recv);
        expect(got.type === 'dto-completion' && [got.cookie, got.status, got.transferredLength]).toEqual(['r0', DtoStatus.SUCCESS, 4]);
        expect(Array.from(side.buf.subarray(0, 4))).toEqual([9, 8, 7, 6]);
        arrivedAt = side.clock.nowNs;
      }
    });
    expect(result.outcome).toBe('completed');
    expect(arrivedAt).toBeGreaterThan(1.5 * TIMER);
    expect(sentAt).toBeGreaterThan(arrivedAt);
  });
});
