// On every simulated provider, a receive exists from the time it was posted on its poster's clock.
// That clock runs ahead of the kernel's while the rank works (CPU time charged), so a send can
// arrive, in the run, after the receive was posted in JS but before its posting time: it must find
// no receive then (RNR, a LAPI resend, a parked combuf send), not complete early.
import { describe, expect, it } from 'vitest';
import { DtoStatus } from '@dapl/core';
import { nextEvent, simPairRunner, type SimProviderFactory } from '@dapl/core/testing';
import { createIbProvider } from '@dapl/provider-ib';
import { createLapiProvider } from '@dapl/provider-lapi';
import { createCombufProvider } from '@dapl/provider-combuf';

const PROVIDERS: [string, SimProviderFactory][] = [
  ['ib', createIbProvider],
  ['lapi', createLapiProvider],
  ['combuf', createCombufProvider],
];

describe('simulated providers: a receive is not there before its posting time', () => {
  for (const [name, factory] of PROVIDERS) {
    it(`${name}: a send that arrives while the receiver computes, before it posts, completes after the post`, async () => {
      let postedAt = Number.NaN;
      let sentAt = Number.NaN;
      let sendStartedAt = Number.NaN;
      const result = await simPairRunner(factory)({}, 64, async (side) => {
        if (side.rank === 0) {
          side.buf.set([4, 3, 2, 1], 0);
          sendStartedAt = side.clock.nowNs;
          side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 4 }], 's0');
          const done = await nextEvent(side.request);
          expect(done).toMatchObject({ type: 'dto-completion', cookie: 's0', status: DtoStatus.SUCCESS });
          sentAt = side.clock.nowNs;
        } else {
          // 50 µs of work first: the send arrives long before this receive is posted.
          side.clock.charge(50_000);
          side.ep.postRecv([{ lmr: side.lmr, offset: 16, length: 16 }], 'r0');
          postedAt = side.clock.nowNs;
          const got = await nextEvent(side.recv);
          expect(got).toMatchObject({ type: 'dto-completion', cookie: 'r0', status: DtoStatus.SUCCESS, transferredLength: 4 });
          expect(Array.from(side.buf.subarray(16, 20))).toEqual([4, 3, 2, 1]);
          // Stay connected while the sender's acknowledgement is on its way.
          await side.kernel.sleep(side.rank, 100_000);
        }
      });
      expect(result.failures).toEqual([]);
      expect(result.outcome).toBe('completed');
      // The send was on its way well before the receive was posted...
      expect(postedAt - sendStartedAt).toBeGreaterThan(40_000);
      // ...and is acknowledged only after it.
      expect(sentAt).toBeGreaterThan(postedAt);
    });
  }
});

describe('ib: a receive posted ahead of the arrival counts against the retry budget from the RNR', () => {
  // The send finds no receive at about 22 µs; with 2 retries of 20 µs it has until about 62 µs.
  const FINITE = { rnrRetries: 2, rnrTimerNs: 20_000 };
  for (const [work, expected] of [
    [30_000, DtoStatus.SUCCESS],
    [70_000, DtoStatus.RECEIVER_NOT_READY],
  ] as const) {
    it(`a receive posted after ${work / 1000} µs of work: the send completes ${expected}`, async () => {
      let status: string | undefined;
      const result = await simPairRunner(createIbProvider)(FINITE, 64, async (side) => {
        if (side.rank === 0) {
          side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 4 }], 's0');
          const done = await nextEvent(side.request);
          status = done.type === 'dto-completion' ? done.status : done.type;
        } else {
          side.clock.charge(work);
          side.ep.postRecv([{ lmr: side.lmr, offset: 16, length: 16 }], 'r0');
          await nextEvent(expected === DtoStatus.SUCCESS ? side.recv : side.connect);
          await side.kernel.sleep(side.rank, 100_000);
        }
      });
      expect(result.failures).toEqual([]);
      expect(status).toBe(expected);
    });
  }
});

