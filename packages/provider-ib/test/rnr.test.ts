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

describe('ib: the retry budget is counted on the receiver\'s clock', () => {
  it('a receive posted after CPU work has taken the receiver past the last retry does not save the send', async () => {
    let status: string | undefined;
    const result = await runPair(FINITE, 64, async (side) => {
      if (side.rank === 0) {
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 8 }], 's0');
        const done = await nextEvent(side.request);
        status = done.type === 'dto-completion' ? done.status : done.type;
      } else {
        // The send is refused at about 22 µs; its two retries end at about 24 µs. The receiver is
        // woken before that in kernel time, but computes 5 µs first: its receive is posted at ~28 µs.
        await side.kernel.sleep(1, 23_000 - side.clock.nowNs);
        side.clock.charge(5_000);
        side.ep.postRecv([{ lmr: side.lmr, offset: 0, length: 8 }], 'r0');
      }
      await nextEvent(side.connect);
    });
    expect(result.outcome).toBe('completed');
    expect(status).toBe(DtoStatus.RECEIVER_NOT_READY);
  });
});

describe('ib: a receive a send has reached when the receiver disconnects', () => {
  it('completes or flushes, never stays outstanding, wherever the disconnect falls in the send\'s flight', async () => {
    const outcomes = new Set<string>();
    // Disconnect times across the send's arrival (the send leaves at about 21 µs, lands by about 32 µs).
    for (let at = 20_000; at <= 34_000; at += 250) {
      let recvOutcome = 'none';
      const result = await runPair({}, 64, async (side) => {
        if (side.rank === 0) {
          side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 8 }], 's0');
          const done = await nextEvent(side.request);
          expect(done.type).toBe('dto-completion');
          return;
        }
        side.ep.postRecv([{ lmr: side.lmr, offset: 0, length: 8 }], 'r0');
        if (at > side.clock.nowNs) await side.kernel.sleep(1, at - side.clock.nowNs);
        side.ep.disconnect();
        const e = await nextEvent(side.recv);
        recvOutcome = e.type === 'dto-completion' ? `${String(e.cookie)} ${e.status}` : e.type;
      });
      expect(result.outcome, `disconnect at ${at} ns`).toBe('completed');
      outcomes.add(recvOutcome);
    }
    // Both sides of the window were crossed: some receives completed, some were flushed.
    expect([...outcomes].sort()).toEqual([`r0 ${DtoStatus.FLUSHED}`, `r0 ${DtoStatus.SUCCESS}`]);
  });
});
