import { describe, expect, it } from 'vitest';
import { WallClock } from '@dapl/core';
import { ANY_SOURCE } from '../src/api/constants.js';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import { LINEAR_SCAN_ENTRY_NS, MATCH_NS } from '../src/adi/costs.js';
import { PointToPoint } from '../src/adi/point-to-point.js';
import { SendMode, type IncomingMessage, type RecvRequest, type SendRequest } from '../src/adi/requests.js';
import type { BufferSpan } from '../src/adi/transfer.js';
import { Datatype } from '../src/datatype/index.js';
import type { Device } from '../src/device/device.js';

/** A device that records what the ADI asks of it and delivers eager payloads itself. */
class RecordingDevice implements Device {
  readonly name = 'recording';
  readonly sent: SendRequest[] = [];
  readonly kept: IncomingMessage[] = [];
  readonly released: (number | undefined)[] = [];
  send(request: SendRequest): void {
    this.sent.push(request);
  }
  deliver(message: IncomingMessage, request: RecvRequest): void {
    request.data.bytes.set(message.payload!.subarray(0, Math.min(message.size, request.data.size)));
    request.finish(message.source, message.tag, message.size);
  }
  keep(message: IncomingMessage): void {
    this.kept.push(message);
  }
  readonly posted: RecvRequest[] = [];
  /** Receives whose cancel the device takes over (as for an advertised receive). */
  readonly deferred = new Set<RecvRequest>();
  receivePosted(peer: number | undefined, request?: RecvRequest): void {
    this.released.push(peer);
    if (request !== undefined) this.posted.push(request);
  }
  deferCancel(request: RecvRequest): boolean {
    return this.deferred.has(request);
  }
  discard(): void {}
  drain(): Promise<void> {
    return Promise.resolve();
  }
  protocolInfo(): string[] {
    return [];
  }
  counters(): Record<string, number> {
    return {};
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const span = (n: number): BufferSpan => ({ bytes: new Uint8Array(n), offset: 0, program: Datatype.BYTE.program, count: n, size: n });
const message = (source: number, tag: number, bytes: number[], extra: Partial<IncomingMessage> = {}): IncomingMessage => ({
  peer: source,
  context: 0,
  source,
  tag,
  size: bytes.length,
  payload: Uint8Array.from(bytes),
  synchronous: false,
  ready: false,
  deviceState: undefined,
  ...extra,
});

function setUp() {
  const p2p = new PointToPoint(new WallClock());
  const device = new RecordingDevice();
  p2p.device = device;
  return { p2p, device };
}

describe('PointToPoint (the ADI)', () => {
  it('a message that arrives before its receive is kept, then delivered when the receive is posted', async () => {
    const { p2p, device } = setUp();
    p2p.arrive(message(2, 9, [1, 2, 3]));
    expect(device.kept).toHaveLength(1);
    const r = p2p.irecv(0, ANY_SOURCE, 9, span(3), undefined);
    const st = await r.wait();
    expect([st.source, st.tag, st.count]).toEqual([2, 9, 3]);
    expect([...r.data.bytes]).toEqual([1, 2, 3]);
    expect(device.released).toEqual([]);
  });

  it('a device arriving in two steps: takePosted hands over the posted receive, arriveUnexpected queues the rest and wakes probes', async () => {
    const { p2p, device } = setUp();
    const r = p2p.irecv(0, 1, 4, span(2), 1);
    expect(p2p.takePosted(0, 1, 5)).toBeUndefined();
    const taken = p2p.takePosted(0, 1, 4);
    expect(taken).toBe(r);
    expect(p2p.cancel(r)).toBe(false);
    expect(p2p.engine.postedCount).toBe(0);
    const probe = p2p.probe(0, 1, 5, 1);
    const m = message(1, 5, [8, 9]);
    p2p.arriveUnexpected(m);
    expect(device.kept).toEqual([m]);
    expect((await probe).count).toBe(2);
    const later = p2p.irecv(0, 1, 5, span(2), 1);
    expect([...(await later.wait(), later.data.bytes)]).toEqual([8, 9]);
  });

  it('a receive that matches nothing asks the device to release what holds its peer back', () => {
    const { p2p, device } = setUp();
    p2p.irecv(0, 4, 1, span(1), 4);
    p2p.irecv(0, ANY_SOURCE, 1, span(1), undefined);
    expect(device.released).toEqual([4, undefined]);
  });

  it('a ready-mode message that found no receive fails the receive that takes it, data delivered', async () => {
    const { p2p } = setUp();
    p2p.arrive(message(1, 5, [7], { ready: true }));
    const r = p2p.irecv(0, 1, 5, span(1), 1);
    const error = await r.wait().catch((e: unknown) => e as MpiError);
    expect(error).toBeInstanceOf(MpiError);
    expect((error as MpiError).errorClass).toBe(ErrorClass.ERR_OTHER);
    expect(r.data.bytes[0]).toBe(7);
  });

  it('losing a peer fails the receives naming it, not the wildcard ones, and later operations with it at once', async () => {
    const { p2p, device } = setUp();
    const named = p2p.irecv(0, 3, 1, span(1), 3);
    const other = p2p.irecv(0, 2, 1, span(1), 2);
    const wild = p2p.irecv(0, ANY_SOURCE, 1, span(1), undefined);
    const lost = new MpiError(ErrorClass.ERR_PROC_FAILED, 'rank 3 is gone');
    p2p.peerFailed(3, lost);
    await expect(named.wait()).rejects.toBe(lost);
    expect(other.done || wild.done).toBe(false);
    expect(p2p.engine.postedCount).toBe(2);
    await expect(p2p.irecv(0, 3, 2, span(1), 3).wait()).rejects.toBe(lost);
    await expect(p2p.isend(3, 0, 0, 1, span(1), SendMode.STANDARD).wait()).rejects.toBe(lost);
    expect(device.sent).toHaveLength(0);
  });

  it('cancel completes a posted receive as cancelled, once', async () => {
    const { p2p } = setUp();
    const r = p2p.irecv(0, 1, 1, span(1), 1);
    expect(p2p.cancel(r)).toBe(true);
    expect((await r.wait()).cancelled).toBe(true);
    expect(p2p.cancel(r)).toBe(false);
    expect(p2p.engine.postedCount).toBe(0);
  });

  it('a cancel the device defers leaves the receive posted until the device cancels it, or a message matches it first', async () => {
    const { p2p, device } = setUp();
    const first = p2p.irecv(0, 1, 1, span(1), 1);
    const second = p2p.irecv(0, 1, 1, span(1), 1);
    expect(device.posted).toEqual([first, second]);
    expect(p2p.olderRivals(first)).toBe(-1);
    expect(p2p.olderRivals(second)).toBe(1);
    device.deferred.add(first).add(second);
    expect(p2p.cancel(first)).toBe(true);
    expect(p2p.cancel(second)).toBe(true);
    expect(first.done || second.done).toBe(false);
    // A message matches the first while its cancel is under way: it completes with the data.
    p2p.arrive(message(1, 1, [7]));
    expect(p2p.cancelPosted(first)).toBe(false);
    expect((await first.wait()).cancelled).toBe(false);
    expect([...first.data.bytes]).toEqual([7]);
    // The second was still posted when the device finished: cancelled.
    expect(p2p.cancelPosted(second)).toBe(true);
    expect((await second.wait()).cancelled).toBe(true);
    expect(p2p.engine.postedCount).toBe(0);
  });

  it('mpi.matching=linear charges each receive posted a scan of every queued receive and unexpected message; indexed does not', () => {
    /** A wall clock that records what is charged to it. */
    class ChargeRecorder extends WallClock {
      readonly charges: number[] = [];
      override charge(ns: number): void {
        this.charges.push(ns);
      }
    }
    for (const matching of ['indexed', 'linear'] as const) {
      const clock = new ChargeRecorder();
      const p2p = new PointToPoint(clock, matching);
      p2p.device = new RecordingDevice();
      p2p.arrive(message(3, 50, [1])); // one unexpected message
      for (let tag = 0; tag < 4; tag++) p2p.irecv(0, 1, tag, span(1), 1);
      const posting = clock.charges.slice(-4);
      const scan = (queued: number): number => (matching === 'linear' ? MATCH_NS + LINEAR_SCAN_ENTRY_NS * queued : MATCH_NS);
      expect(posting, matching).toEqual([scan(1), scan(2), scan(3), scan(4)]);
    }
  });
});
