import { expect } from 'vitest';
import { MemAccess } from '../../dat/memory.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { DtoCompletionEvent } from '../../dat/events.js';
import type { Harness } from './harness.js';
import { expectSameBytes, summarize } from './helpers.js';
import { connectPair, region, seg, type Side } from './pair.js';

const MESSAGE = 64;
const BATCH = 256;
/** Receive slots: two batches may be outstanding, and a slot is re-posted only after it was checked. */
const RING = 2 * BATCH;

/**
 * Completions of the flood at the sender, checked in order as they come (so the sender's
 * EVD never has to hold the whole flood).
 */
class SenderLedger {
  next = 0;

  constructor(private readonly side: Side) {}

  drain(): void {
    for (let ev = this.side.request.dequeue(); ev !== undefined; ev = this.side.request.dequeue()) {
      if (ev.type !== 'dto-completion' || ev.cookie !== this.next || ev.status !== DtoStatus.SUCCESS) {
        throw new Error(`send completion ${this.next}: got ${summarize(ev)}`);
      }
      this.next++;
    }
  }
}

/** Backpressure end to end: a flood of sends with no receives must stall, not pile up in the provider. */
export function registerFlowTests(h: Harness): void {
  const title = `${h.fixture.floodCount} sends posted before any receive all arrive in order, and the receiver buffers at most ${h.fixture.maxBufferedBytes} bytes`;
  h.test(title, [], async () => {
    const [clientIa, serverIa] = await h.openPair();
    const limits = clientIa.query().limits;
    const count = Math.min(h.fixture.floodCount, limits.maxRequestDtos);
    const { client, server } = await connectPair(h, {
      ias: [clientIa, serverIa],
      clientAttributes: { maxRequestDtos: count },
      serverAttributes: { maxRecvDtos: Math.min(RING, serverIa.query().limits.maxRecvDtos) },
    });
    const src = region(client.pz, count * MESSAGE, MemAccess.LOCAL);
    const view = new DataView(src.bytes.buffer, src.bytes.byteOffset, src.bytes.byteLength);
    for (let i = 0; i < count; i++) view.setUint32(i * MESSAGE, i);
    for (let i = 0; i < count; i++) client.ep.postSend([seg(src.lmr, i * MESSAGE, MESSAGE)], i);

    const ring = region(server.pz, RING * MESSAGE, MemAccess.LOCAL, 0);
    const ringView = new DataView(ring.bytes.buffer, ring.bytes.byteOffset, ring.bytes.byteLength);
    const sender = new SenderLedger(client);
    let posted = 0;
    const refill = (received: number): void => {
      if (posted - received > BATCH) return;
      const upto = Math.min(count, posted + BATCH);
      for (; posted < upto; posted++) server.ep.postRecv([seg(ring.lmr, (posted % RING) * MESSAGE, MESSAGE)], posted);
    };
    refill(0);
    for (let received = 0; received < count; ) {
      await h.nextCompletion(server.recv, { cookie: received, status: DtoStatus.SUCCESS, transferredLength: MESSAGE });
      const at = (received % RING) * MESSAGE;
      const seq = ringView.getUint32(at);
      if (seq !== received || !sameRange(ring.bytes, at, src.bytes, received * MESSAGE, MESSAGE)) {
        throw new Error(`message ${received}: got sequence number ${seq} or different payload bytes`);
      }
      received++;
      refill(received);
      sender.drain();
    }
    while (sender.next < count) {
      await h.nextCompletion(client.request, { cookie: sender.next, status: DtoStatus.SUCCESS });
      sender.next++;
      sender.drain();
    }
    const peak = serverIa.counters().peakBufferedBytes;
    expect(peak, `server peakBufferedBytes ${peak}`).toBeLessThanOrEqual(h.fixture.maxBufferedBytes);
  }, Math.max(h.testTimeoutMs, 60_000));

  for (const size of [8, 4096]) {
    h.test(`two ${size}-byte sends back to back into a receiver that posts one receive at a time: both arrive and complete, in order`, [], async () => {
      const { client, server } = await connectPair(h);
      const src = region(client.pz, 2 * size, MemAccess.LOCAL);
      const dst = region(server.pz, 2 * size, MemAccess.LOCAL, 0);
      server.ep.postRecv([seg(dst.lmr, 0, size)], 'r0');
      // The second send finds no receive and waits: the first, already in its receive, must still complete.
      client.ep.postSend([seg(src.lmr, 0, size)], 's0');
      client.ep.postSend([seg(src.lmr, size, size)], 's1');
      expect(await h.nextEvent(server.recv, 'dto-completion')).toMatchObject({ cookie: 'r0', status: DtoStatus.SUCCESS, transferredLength: size });
      server.ep.postRecv([seg(dst.lmr, size, size)], 'r1');
      expect(await h.nextEvent(server.recv, 'dto-completion')).toMatchObject({ cookie: 'r1', status: DtoStatus.SUCCESS, transferredLength: size });
      expect(await h.nextEvent(client.request, 'dto-completion')).toMatchObject({ cookie: 's0', status: DtoStatus.SUCCESS });
      expect(await h.nextEvent(client.request, 'dto-completion')).toMatchObject({ cookie: 's1', status: DtoStatus.SUCCESS });
      expectSameBytes(dst.bytes, src.bytes, 'both messages, in order');
    });
  }

  h.test('EVDs of depth 4 under 64 messages lose no completion and keep their order', [], async () => {
    const count = 64;
    const { client, server } = await connectPair(h, { evdDepth: 4 });
    const src = region(client.pz, count * 8, MemAccess.LOCAL);
    const dst = region(server.pz, count * 8, MemAccess.LOCAL, 0);
    for (let i = 0; i < count; i++) server.ep.postRecv([seg(dst.lmr, i * 8, 8)], i);
    for (let i = 0; i < count; i++) client.ep.postSend([seg(src.lmr, i * 8, 8)], i);
    for (let i = 0; i < count; i++) {
      const got = await nextSkippingOverflow(h, server.recv);
      expect([got.cookie, got.status, got.transferredLength]).toEqual([i, DtoStatus.SUCCESS, 8]);
    }
    for (let i = 0; i < count; i++) {
      const sent = await nextSkippingOverflow(h, client.request);
      expect([sent.cookie, sent.status]).toEqual([i, DtoStatus.SUCCESS]);
    }
    expectSameBytes(dst.bytes, src.bytes, 'all 64 messages');
  });
}

/** Completions of `evd` in order, passing over the QUEUE_FULL reports an overflowing EVD may add. */
async function nextSkippingOverflow(h: Harness, evd: EventDispatcher): Promise<DtoCompletionEvent> {
  for (;;) {
    const event = await h.nextEvent(evd, 'dto-completion', 'async-error');
    if (event.type === 'dto-completion') return event;
    expect(event.status, event.message).toBe(DatStatus.QUEUE_FULL);
  }
}

function sameRange(a: Uint8Array, aAt: number, b: Uint8Array, bAt: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aAt + i] !== b[bAt + i]) return false;
  return true;
}
