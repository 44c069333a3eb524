import { describe, expect, it } from 'vitest';
import { DtoStatus } from '@dapl/core';
import { nextEvent, simPairRunner } from '@dapl/core/testing';
import { createLapiProvider, LAPI_MODEL } from '../src/index.js';

const runPair = simPairRunner(createLapiProvider);

const M = LAPI_MODEL;
const PAYLOAD = M.packetBytes - M.lapiHeaderBytes;

/**
 * Post → target completion of a one-packet send of `bytes` on an idle switch, from the model's
 * figures: LAPI call, HAL copy + adapter DMA, adapter, switch, adapter, (interrupt), header handler,
 * DMA + HAL copy into the receive, in-context completion handler.
 */
function expectedSmallSend(bytes: number): number {
  const hal = M.halPacketNs + bytes / M.halCopyBytesPerNs + M.dmaLatencyNs + bytes / M.dmaBytesPerNs;
  const wire = M.adapterSendNs + (bytes + M.lapiHeaderBytes) / M.switchBytesPerNs + M.switchLatencyNs + M.adapterRecvNs;
  return M.lapiCallNs + hal + wire + M.headerHandlerNs + hal + M.completionInContextNs;
}

/** Rank 0 sends `bytes` to rank 1's posted receive; returns post → receive completion (virtual ns) and the bytes. */
async function oneWaySend(parameters: Readonly<Record<string, unknown>>, bytes: number): Promise<{ ns: number; sent: Uint8Array; arrived: Uint8Array }> {
  let posted = -1;
  let ns = 0;
  let sent = new Uint8Array(0);
  let arrived = new Uint8Array(0);
  // The receiver stays connected until the sender's completion (LAPI's ack) is in.
  let senderDone!: () => void;
  const senderFinished = new Promise<void>((resolve) => (senderDone = resolve));
  const result = await runPair(parameters, bytes, async (side) => {
    if (side.rank === 0) {
      for (let i = 0; i < bytes; i++) side.buf[i] = (i * 13 + 5) & 0xff;
      sent = side.buf.slice();
      // Let the receiver post first, so the header handler finds the receive.
      await side.kernel.sleep(0, 1_000);
      posted = side.clock.nowNs;
      side.ep.postSend([{ lmr: side.lmr, offset: 0, length: bytes }], 's');
      try {
        const done = await nextEvent(side.request);
        expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
      } finally {
        senderDone();
      }
    } else {
      side.ep.postRecv([{ lmr: side.lmr, offset: 0, length: bytes }], 'r');
      const got = await nextEvent(side.recv);
      expect(got.type === 'dto-completion' && [got.cookie, got.status, got.transferredLength]).toEqual(['r', DtoStatus.SUCCESS, bytes]);
      ns = side.clock.nowNs - posted;
      arrived = side.buf.slice();
      await senderFinished;
    }
  });
  expect(result.failures.map((x) => String(x.error))).toEqual([]);
  expect(result.outcome).toBe('completed');
  expect(posted).toBeGreaterThanOrEqual(0);
  return { ns, sent, arrived };
}

describe('lapi virtual timing', () => {
  it("a small send's latency (post to the receive's completion) is the model's", async () => {
    for (const bytes of [0, 8, 512]) {
      const { ns, sent, arrived } = await oneWaySend({}, bytes);
      expect(ns).toBeCloseTo(expectedSmallSend(bytes), 6);
      expect(Array.from(arrived)).toEqual(Array.from(sent));
    }
  });

  it('interrupt mode adds the interrupt and wake-up cost to the arrival', async () => {
    const polling = await oneWaySend({ mode: 'polling' }, 64);
    const interrupt = await oneWaySend({ mode: 'interrupt' }, 64);
    expect(interrupt.ns - polling.ns).toBeCloseTo(M.interruptNs, 6);
  });

  it("an interrupt handler's wait for more packets (the native MPI's hysteresis) delays the arrival by that wait, in interrupt mode only", async () => {
    const interrupt = await oneWaySend({ mode: 'interrupt' }, 64);
    const waiting = await oneWaySend({ mode: 'interrupt', interruptDelayNs: 1_000 }, 64);
    expect(waiting.ns - interrupt.ns).toBeCloseTo(1_000, 6);
    const polling = await oneWaySend({ mode: 'polling' }, 64);
    const pollingWaiting = await oneWaySend({ mode: 'polling', interruptDelayNs: 1_000 }, 64);
    expect(pollingWaiting.ns).toBeCloseTo(polling.ns, 6);
  });

  it('a threaded completion handler adds the thread switch; the default in-context one does not', async () => {
    const inContext = await oneWaySend({}, 64);
    const thread = await oneWaySend({ completionHandler: 'thread' }, 64);
    expect(thread.ns - inContext.ns).toBeCloseTo(M.completionThreadSwitchNs, 6);
  });

  it('a 64 KiB send is bounded by 160 MB/s less the 48-byte header of every packet, and comes close to it', async () => {
    const bytes = 64 * 1024;
    const { ns, sent, arrived } = await oneWaySend({}, bytes);
    const limit = (M.switchBytesPerNs * PAYLOAD) / M.packetBytes;
    const rate = bytes / ns;
    expect(rate).toBeLessThanOrEqual(limit);
    expect(rate).toBeGreaterThan(0.95 * limit);
    expect(arrived.every((b, i) => b === sent[i])).toBe(true);
  });

  it('the same scenario twice gives identical virtual times', async () => {
    const first = await oneWaySend({ mode: 'interrupt' }, 3000);
    const second = await oneWaySend({ mode: 'interrupt' }, 3000);
    expect(second.ns).toBe(first.ns);
  });
});
