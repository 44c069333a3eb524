import { describe, expect, it } from 'vitest';
import { DtoStatus } from '@dapl/core';
import { nextEvent, simPairRunner, type SimPairSide } from '@dapl/core/testing';
import { createIbProvider, IB_MODEL } from '../src/index.js';

const runPair = simPairRunner(createIbProvider);

const M = IB_MODEL;

/** The target HCA's DMA read of the receive WQE a write with immediate consumes. */
const receiveWqeReadNs = M.pciReadLatencyNs + M.wqeBytes / M.pciBytesPerNs;

/** One-way time of an RDMA write with immediate of `bytes` on an idle fabric, from the model's figures. */
function expectedOneWay(bytes: number): number {
  const packets = Math.max(1, Math.ceil(bytes / M.mtuBytes));
  const wire = (bytes + packets * M.packetHeaderBytes) / M.linkBytesPerNs;
  const firstChunk = Math.min(bytes, M.mtuBytes) / M.pciBytesPerNs;
  const inline = bytes <= M.inlineBytes;
  // Doorbell, then the HCA reads the WQE (with the data when inline) by DMA.
  const wqeFetch = M.doorbellNs + M.pciReadLatencyNs + (M.wqeBytes + (inline ? bytes : 0)) / M.pciBytesPerNs;
  const dmaRead = inline ? 0 : M.pciReadLatencyNs + firstChunk;
  // The target writes the data at once, but the completion with the immediate waits for the receive WQE it consumes.
  const targetSide = Math.max(firstChunk, receiveWqeReadNs);
  return M.postOverheadNs + wqeFetch + dmaRead + M.hcaSendOverheadNs + wire + M.linkLatencyNs + M.switchHopNs + M.hcaRecvOverheadNs + targetSide + M.pciWriteLatencyNs;
}

async function expectImmediate(side: SimPairSide, immediate: number): Promise<number> {
  const ev = await nextEvent(side.recv);
  if (ev.type !== 'dto-completion' || ev.op !== 'recv-immediate' || ev.immediate !== immediate) throw new Error(`rank ${side.rank}: unexpected ${JSON.stringify({ ...ev, ep: undefined })}`);
  return side.clock.nowNs;
}

/** Ping-pong of `rounds` 8-byte RDMA writes with immediate; returns rank 0's times of each round trip. */
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
    for (let i = 0; i < rounds; i++) {
      const done = await nextEvent(side.request);
      expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
    }
  });
  expect(result.outcome).toBe('completed');
  return trips;
}

/** Rank 0 writes `bytes` (with immediate) into rank 1's buffer; returns post → target completion, virtual ns. */
async function oneWay(bytes: number): Promise<{ ns: number; arrived: Uint8Array; sent: Uint8Array }> {
  let posted = 0;
  let ns = 0;
  let sent = new Uint8Array(0);
  let arrived = new Uint8Array(0);
  const result = await runPair({}, bytes, async (side) => {
    if (side.rank === 0) {
      for (let i = 0; i < bytes; i++) side.buf[i] = (i * 7 + 3) & 0xff;
      sent = side.buf.slice();
      posted = side.clock.nowNs;
      side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: bytes }], 'w', side.remote, { immediate: 5 });
      const done = await nextEvent(side.request);
      expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
    } else {
      const at = await expectImmediate(side, 5);
      ns = at - posted;
      arrived = side.buf.slice();
    }
  });
  expect(result.outcome).toBe('completed');
  return { ns, arrived, sent };
}

/** Rank 0's post → request completion of one 8-byte RDMA write, with or without immediate, virtual ns. */
async function writeCompletion(withImmediate: boolean): Promise<number> {
  let ns = 0;
  let written!: () => void;
  const writerDone = new Promise<void>((resolve) => (written = resolve));
  const result = await runPair({}, 8, async (side) => {
    if (side.rank === 0) {
      const posted = side.clock.nowNs;
      side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length: 8 }], 'w', side.remote, withImmediate ? { immediate: 1 } : {});
      const done = await nextEvent(side.request);
      expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
      ns = side.clock.nowNs - posted;
      written();
    } else {
      if (withImmediate) await expectImmediate(side, 1);
      await side.kernel.blockedOn(1, 'the writer', writerDone); // the target stays connected until the write is acknowledged
    }
  });
  expect(result.outcome).toBe('completed');
  return ns;
}

describe('ib virtual timing', () => {
  it("an 8-byte RDMA-write-with-immediate ping-pong's half round trip is the model's one-way time", async () => {
    const trips = await pingPong(10);
    expect(trips).toHaveLength(10);
    for (const trip of trips) expect(trip / 2).toBeCloseTo(expectedOneWay(8), 6);
  });

  it('a payload one byte above the inline threshold costs the DMA read more', async () => {
    const inline = await oneWay(M.inlineBytes);
    const dma = await oneWay(M.inlineBytes + 1);
    expect(inline.ns).toBeCloseTo(expectedOneWay(M.inlineBytes), 6);
    expect(dma.ns).toBeCloseTo(expectedOneWay(M.inlineBytes + 1), 6);
    // Over the threshold the data leaves the WQE (inlineBytes fewer bytes in its read) for a read of its
    // own. The target's write of the extra byte hides behind its receive-WQE read.
    expect((M.inlineBytes + 1) / M.pciBytesPerNs).toBeLessThan(receiveWqeReadNs);
    const extraByte = 1 / M.linkBytesPerNs;
    expect(dma.ns - inline.ns).toBeCloseTo(M.pciReadLatencyNs + (M.inlineBytes + 1) / M.pciBytesPerNs - M.inlineBytes / M.pciBytesPerNs + extraByte, 6);
    expect(Array.from(dma.arrived)).toEqual(Array.from(dma.sent));
  });

  it('only a write with immediate waits at the target for a receive WQE (its data is written at once)', async () => {
    const plain = await writeCompletion(false);
    const immediate = await writeCompletion(true);
    expect(immediate - plain).toBeCloseTo(receiveWqeReadNs - 8 / M.pciBytesPerNs, 6);
  });

  it('a 1 MiB write moves at nearly the slower of the 4X link (after headers) and PCI-X', async () => {
    const bytes = 1 << 20;
    const { ns, arrived, sent } = await oneWay(bytes);
    const linkData = (M.linkBytesPerNs * M.mtuBytes) / (M.mtuBytes + M.packetHeaderBytes);
    const limit = Math.min(linkData, M.pciBytesPerNs);
    const rate = bytes / ns;
    expect(rate).toBeLessThanOrEqual(limit);
    expect(rate).toBeGreaterThan(0.99 * limit);
    expect(arrived.every((b, i) => b === sent[i])).toBe(true);
  });

  it('the same scenario twice gives identical virtual times', async () => {
    const first = await pingPong(5);
    const second = await pingPong(5);
    expect(second).toEqual(first);
  });
});
