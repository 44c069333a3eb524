import { describe, expect, it } from 'vitest';
import { DtoStatus } from '@dapl/core';
import { nextEvent, simPairRunner } from '@dapl/core/testing';
import { COMBUF_MODEL, createCombufProvider, nicOverheadNs } from '../src/index.js';
import { resolveCombufParameters } from '../src/params.js';

const runPair = simPairRunner(createCombufProvider);

const M = COMBUF_MODEL;
const LATE = 50_000;

/** One crossbar apart, idle: a message of `bytes` from the start of its injection to its arrival. */
function flightNs(bytes: number): number {
  const nic = nicOverheadNs(resolveCombufParameters({}));
  return 2 * nic + (bytes + M.packetHeaderBytes) / M.linkBytesPerNs + M.linkLatencyNs + M.crossbarHopNs;
}

describe('combuf send before the receive', () => {
  it('waits at the target; once a receive is posted its notice brings the send, and a later write still lands after it', async () => {
    const events: string[] = [];
    let recvAt = 0;
    let postedAt = 0;
    const result = await runPair({}, 64, async (side) => {
      if (side.rank === 0) {
        side.buf.set([1, 2, 3, 4, 5, 6, 7, 8], 0);
        side.ep.postSend([{ lmr: side.lmr, offset: 0, length: 8 }], 's');
        side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: 4 }], 'w', { ...side.remote, targetOffset: 48, length: 4 }, { immediate: 7 });
        for (const cookie of ['s', 'w']) {
          const done = await nextEvent(side.request);
          expect(done.type === 'dto-completion' && [done.cookie, done.status]).toEqual([cookie, DtoStatus.SUCCESS]);
        }
        return;
      }
      await side.kernel.sleep(1, LATE);
      postedAt = side.clock.nowNs;
      side.ep.postRecv([{ lmr: side.lmr, offset: 16, length: 16 }], 'r');
      for (let i = 0; i < 2; i++) {
        const ev = await nextEvent(side.recv);
        if (ev.type !== 'dto-completion') throw new Error(`unexpected ${ev.type}`);
        events.push(ev.op);
        if (ev.op === 'recv') recvAt = side.clock.nowNs;
      }
      expect(Array.from(side.buf.subarray(16, 24))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(Array.from(side.buf.subarray(48, 52))).toEqual([1, 2, 3, 4]);
    });
    expect(result.outcome).toBe('completed');
    expect(events).toEqual(['recv', 'recv-immediate']);
    // The receive's notice to the sender (header only), then the 8-byte send.
    expect(postedAt).toBeGreaterThanOrEqual(LATE);
    expect(recvAt - postedAt).toBeCloseTo(flightNs(0) + flightNs(8), 6);
  });
});
