import { describe, expect, it } from 'vitest';
import { DtoStatus, type RmrTriplet } from '@dapl/core';
import { nextEvent, simPairRunner, type SimPairSide } from '@dapl/core/testing';
import { COMBUF_MODEL, createCombufProvider, LATENCY_REFERENCE_BYTES } from '../src/index.js';

const runPair = simPairRunner(createCombufProvider);

const M = COMBUF_MODEL;

/** Wire time of a remote DMA of `bytes` on one link, ns. */
function wireNs(bytes: number): number {
  const packets = Math.max(1, Math.ceil(bytes / M.packetBytes));
  return (bytes + packets * M.packetHeaderBytes) / M.linkBytesPerNs;
}

/**
 * Post → data in the target's memory of a remote DMA of `bytes` one crossbar apart on an idle
 * machine, from the model's figures: the 4.7 µs of an 8-byte reused-TCW transfer, the wire time
 * of the extra bytes, plus `setupNs` of CPU work before the kick.
 */
function expectedOneWay(bytes: number, setupNs = 0): number {
  return setupNs + M.tcwReusedLatencyNs - wireNs(LATENCY_REFERENCE_BYTES) + wireNs(bytes);
}

/** Next event of `side.recv`, which must be the recv-immediate `immediate`; returns the rank's time then. */
async function expectImmediate(side: SimPairSide, immediate: number): Promise<number> {
  const ev = await nextEvent(side.recv);
  if (ev.type !== 'dto-completion' || ev.op !== 'recv-immediate' || ev.immediate !== immediate) throw new Error(`rank ${side.rank}: unexpected ${JSON.stringify({ ...ev, ep: undefined })}`);
  return side.clock.nowNs;
}

async function expectSuccess(side: SimPairSide): Promise<void> {
  const done = await nextEvent(side.request);
  expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
}

/**
 * Rank 0 writes (with immediate i) the given `(bytes, targetOffset)` transfers one after another
 * into rank 1's buffer, each after the previous one completed; returns post → arrival of each.
 */
async function writes(bufBytes: number, transfers: readonly { bytes: number; at: number }[]): Promise<{ ns: number[]; intact: boolean }> {
  const posted: number[] = [];
  const ns: number[] = [];
  let intact = false;
  let sent = new Uint8Array(0);
  const result = await runPair({}, bufBytes, async (side) => {
    if (side.rank === 0) {
      for (let i = 0; i < bufBytes; i++) side.buf[i] = (i * 7 + 3) & 0xff;
      sent = side.buf.slice();
      for (const [i, t] of transfers.entries()) {
        const remote: RmrTriplet = { ...side.remote, targetOffset: t.at, length: t.bytes };
        posted.push(side.clock.nowNs);
        side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: t.bytes }], i, remote, { immediate: i });
        await expectSuccess(side);
      }
    } else {
      for (const [i, t] of transfers.entries()) {
        ns.push((await expectImmediate(side, i)) - posted[i]);
        intact = side.buf.subarray(t.at, t.at + t.bytes).every((b, k) => b === sent[k]);
        if (!intact) return;
      }
    }
  });
  expect(result.outcome).toBe('completed');
  return { ns, intact };
}

/** Ping-pong of `rounds` 8-byte writes with immediate; returns rank 0's round-trip times. */
async function pingPong(rounds: number): Promise<number[]> {
  const trips: number[] = [];
  const result = await runPair({}, 64, async (side) => {
    const remote = { ...side.remote, length: 8 };
    for (let i = 0; i < rounds; i++) {
      if (side.rank === 0) {
        const start = side.clock.nowNs;
        side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: 8 }], i, remote, { immediate: i });
        await expectImmediate(side, i);
        trips.push(side.clock.nowNs - start);
      } else {
        await expectImmediate(side, i);
        side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: 8 }], i, remote, { immediate: i });
      }
    }
    for (let i = 0; i < rounds; i++) await expectSuccess(side);
  });
  expect(result.outcome).toBe('completed');
  return trips;
}

describe('combuf virtual timing', () => {
  it('an 8-byte write with a reused TCW takes the TCW-reused latency; the first one pays the send right and the TCW creation too', async () => {
    const { ns, intact } = await writes(64, [
      { bytes: 8, at: 0 },
      { bytes: 8, at: 0 },
      { bytes: 8, at: 16 },
    ]);
    expect(intact).toBe(true);
    expect(ns[0]).toBeCloseTo(expectedOneWay(8, M.sendRightNs + M.tcwCreateNs), 6);
    expect(ns[1]).toBeCloseTo(M.tcwReusedLatencyNs, 6);
    // Another target address: a new TCW, but the send right is held already.
    expect(ns[2]).toBeCloseTo(M.tcwReusedLatencyNs + M.tcwCreateNs, 6);
  });

  it('an 8-byte ping-pong with reused TCWs has half round trips of the TCW-reused latency after the first', async () => {
    const trips = await pingPong(6);
    expect(trips).toHaveLength(6);
    expect(trips[0]).toBeCloseTo(2 * M.tcwReusedLatencyNs + 2 * (M.sendRightNs + M.tcwCreateNs), 6);
    for (const trip of trips.slice(1)) expect(trip / 2).toBeCloseTo(M.tcwReusedLatencyNs, 6);
  });

  it('a 16 MB write approaches the 1000 MB/s link and its bytes arrive intact', async () => {
    const bytes = 16 << 20;
    const { ns, intact } = await writes(bytes, [{ bytes, at: 0 }]);
    expect(intact).toBe(true);
    expect(ns[0]).toBeCloseTo(expectedOneWay(bytes, M.sendRightNs + M.tcwCreateNs), 3);
    const rate = bytes / ns[0];
    expect(rate).toBeLessThan(M.linkBytesPerNs);
    expect(rate).toBeGreaterThan(0.99 * M.linkBytesPerNs);
  });

  it('the same scenario twice gives identical virtual times', async () => {
    const first = await pingPong(5);
    const second = await pingPong(5);
    expect(second).toEqual(first);
  });
});
