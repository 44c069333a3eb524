import { describe, expect, it } from 'vitest';
import { DatError, DatStatus, type ActiveMessages, type AmCounter, type AmPlacement } from '@dapl/core';
import { nextEvent, simPairRunner, type SimPairSide } from '@dapl/core/testing';
import { createLapiProvider, LAPI_MODEL } from '../src/index.js';

const runPair = simPairRunner(createLapiProvider);

const M = LAPI_MODEL;
const HANDLER = 7;
const TARGET_COUNTER = 5;

function am(side: SimPairSide): ActiveMessages {
  const ext = side.ep.ia.extension('active-messages');
  if (ext === undefined) throw new Error('lapi IA has no active-messages extension');
  return ext;
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function pattern(n: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
}

interface AmRun {
  postedAt: number;
  originAt: number;
  targetAt: number;
  completionAt: number;
  seen: { uhdr: number[]; dataLength: number; source: number } | undefined;
  completionRan: { uhdr: number[]; source: number; atTargetValue: number } | undefined;
  placed: Uint8Array;
  sent: Uint8Array;
}

/** Rank 0 amsends `bytes` with a 3-byte header to rank 1, whose handler places them at offset 100 of its buffer. */
async function amsendOnce(bytes: number, completion: 'none' | 'in-context' | 'thread' | 'signal'): Promise<AmRun> {
  const run: AmRun = { postedAt: -1, originAt: -1, targetAt: -1, completionAt: -1, seen: undefined, completionRan: undefined, placed: new Uint8Array(0), sent: new Uint8Array(0) };
  const originFinished = deferred();
  const result = await runPair({}, bytes + 200, async (side) => {
    const ext = am(side);
    if (side.rank === 1) {
      const counter = ext.createCounter(TARGET_COUNTER);
      ext.registerHandler(HANDLER, (uhdr, dataLength, source): AmPlacement => {
        run.seen = { uhdr: Array.from(uhdr), dataLength, source };
        const iov = [{ lmr: side.lmr, offset: 100, length: dataLength }];
        if (completion === 'none') return { iov };
        if (completion === 'signal') return { iov, signal: () => (run.completionRan = { uhdr: [], source, atTargetValue: counter.value }) };
        return {
          iov,
          inContext: completion === 'in-context',
          completion: (h, src) => (run.completionRan = { uhdr: Array.from(h), source: src, atTargetValue: counter.value }),
        };
      });
      await counter.wait(1);
      run.targetAt = side.clock.nowNs;
      expect(counter.value).toBe(0); // wait(1) subtracted what it waited for
      run.placed = side.buf.slice(100, 100 + bytes);
      await originFinished.promise;
      return;
    }
    const origin = ext.createCounter();
    const done = ext.createCounter();
    run.sent = pattern(bytes, 9);
    side.buf.set(run.sent, 0);
    await side.kernel.sleep(0, 1_000); // the target registers its handler first
    run.postedAt = side.clock.nowNs;
    try {
      ext.amsend(side.ep, HANDLER, Uint8Array.of(1, 2, 3), [{ lmr: side.lmr, offset: 0, length: bytes }], { origin, completion: done, target: TARGET_COUNTER });
      await origin.wait(1);
      run.originAt = side.clock.nowNs;
      await done.wait(1);
      run.completionAt = side.clock.nowNs;
    } finally {
      originFinished.resolve();
    }
  });
  expect(result.failures.map((x) => String(x.error))).toEqual([]);
  expect(result.outcome).toBe('completed');
  return run;
}

describe('lapi active-messages', () => {
  it('is listed and returned by ia.extension', async () => {
    const result = await runPair({}, 64, async (side) => {
      expect(side.ep.ia.query().extensions).toEqual(['active-messages']);
      expect(am(side)).toBe(side.ep.ia.extension('active-messages'));
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
  });

  it('the header handler places a multi-packet message directly in the buffer it returns; the counters reach their values in order', async () => {
    const run = await amsendOnce(3000, 'thread');
    expect(run.seen).toEqual({ uhdr: [1, 2, 3], dataLength: 3000, source: 0 });
    expect(Array.from(run.placed)).toEqual(Array.from(run.sent));
    // The completion handler ran before the target counter moved.
    expect(run.completionRan).toEqual({ uhdr: [1, 2, 3], source: 0, atTargetValue: 0 });
    expect(run.originAt).toBeGreaterThan(run.postedAt);
    expect(run.targetAt).toBeGreaterThan(run.originAt);
    expect(run.completionAt).toBeGreaterThan(run.targetAt);
  });

  it('a completion handler costs the thread switch unless in-context, and an in-context one only its own cost', async () => {
    const none = await amsendOnce(512, 'none');
    const inContext = await amsendOnce(512, 'in-context');
    const thread = await amsendOnce(512, 'thread');
    expect(inContext.targetAt - inContext.postedAt - (none.targetAt - none.postedAt)).toBeCloseTo(M.completionInContextNs, 6);
    expect(thread.targetAt - thread.postedAt - (inContext.targetAt - inContext.postedAt)).toBeCloseTo(M.completionThreadSwitchNs, 6);
    expect(thread.completionAt - inContext.completionAt).toBeCloseTo(M.completionThreadSwitchNs, 6);
    expect(Array.from(thread.placed)).toEqual(Array.from(thread.sent));
  });

  it('a predefined completion (signal) runs as the data lands, before the target counter moves, and costs nothing: the same times as no completion', async () => {
    const none = await amsendOnce(512, 'none');
    const signal = await amsendOnce(512, 'signal');
    expect(signal.completionRan).toEqual({ uhdr: [], source: 0, atTargetValue: 0 });
    expect(signal.targetAt - signal.postedAt).toBeCloseTo(none.targetAt - none.postedAt, 6);
    expect(signal.completionAt - signal.postedAt).toBeCloseTo(none.completionAt - none.postedAt, 6);
    expect(Array.from(signal.placed)).toEqual(Array.from(signal.sent));
  });

  it('a handler id unknown at the target drops the message with an async error there; no counter moves', async () => {
    const done = deferred();
    const result = await runPair({}, 256, async (side) => {
      const ext = am(side);
      if (side.rank === 1) {
        const counter = ext.createCounter(TARGET_COUNTER);
        const event = await nextEvent(side.connect);
        expect(event.type).toBe('async-error');
        if (event.type !== 'async-error') return;
        expect(event.status).toBe(DatStatus.INVALID_PARAMETER);
        expect(event.message).toContain('no header handler 99');
        expect(event.ep).toBe(side.ep);
        expect(side.buf.every((b) => b === 0)).toBe(true);
        expect(counter.value).toBe(0);
        await done.promise;
        return;
      }
      const completion = ext.createCounter();
      side.buf.fill(0xab);
      try {
        ext.amsend(side.ep, 99, new Uint8Array(0), [{ lmr: side.lmr, offset: 0, length: 64 }], { completion, target: TARGET_COUNTER });
        // Long past any ack: the completion counter never moved.
        await side.kernel.sleep(0, 10 * M.retransmitNs);
        expect(completion.value).toBe(0);
      } finally {
        done.resolve();
      }
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
    expect(result.outcome).toBe('completed');
  });

  it('a placement smaller than the data drops the message with a LENGTH_ERROR async error; nothing is written', async () => {
    const done = deferred();
    const result = await runPair({}, 256, async (side) => {
      const ext = am(side);
      if (side.rank === 1) {
        ext.registerHandler(HANDLER, () => ({ iov: [{ lmr: side.lmr, offset: 0, length: 10 }] }));
        const event = await nextEvent(side.connect);
        expect(event.type === 'async-error' && event.status).toBe(DatStatus.LENGTH_ERROR);
        expect(side.buf.every((b) => b === 0)).toBe(true);
        await done.promise;
        return;
      }
      side.buf.fill(0xcd);
      await side.kernel.sleep(0, 1_000);
      try {
        ext.amsend(side.ep, HANDLER, new Uint8Array(0), [{ lmr: side.lmr, offset: 0, length: 64 }]);
        await side.kernel.sleep(0, 10 * M.retransmitNs);
      } finally {
        done.resolve();
      }
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
    expect(result.outcome).toBe('completed');
  });

  it('put and get move bytes through the RMR window and drive the origin, target and completion counters', async () => {
    const done = deferred();
    const PUT = 2000;
    const AT = 3000;
    const result = await runPair({}, 6000, async (side) => {
      const ext = am(side);
      if (side.rank === 1) {
        side.buf.set(pattern(PUT, 77), AT); // what rank 0 will get
        const counter = ext.createCounter(TARGET_COUNTER);
        await counter.wait(2); // the put landed and the get's data went out
        expect(Array.from(side.buf.slice(0, PUT))).toEqual(Array.from(pattern(PUT, 3)));
        await done.promise;
        return;
      }
      const origin = ext.createCounter();
      const completion = ext.createCounter();
      side.buf.set(pattern(PUT, 3), 0);
      try {
        ext.put(side.ep, [{ lmr: side.lmr, offset: 0, length: PUT }], { ...side.remote, targetOffset: 0 }, { origin, completion, target: TARGET_COUNTER });
        await origin.wait(1);
        await completion.wait(1);
        ext.get(side.ep, [{ lmr: side.lmr, offset: AT, length: PUT }], { ...side.remote, targetOffset: AT }, { origin, completion, target: TARGET_COUNTER });
        await origin.wait(1);
        expect(Array.from(side.buf.slice(AT, AT + PUT))).toEqual(Array.from(pattern(PUT, 77)));
        await completion.wait(1);
        expect([origin.value, completion.value]).toEqual([0, 0]);
      } finally {
        done.resolve();
      }
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
    expect(result.outcome).toBe('completed');
  });

  it('counter.wait subtracts what it waited for; bad arguments are typed errors', async () => {
    const result = await runPair({}, 64, async (side) => {
      const ext = am(side);
      const c: AmCounter = ext.createCounter();
      c.set(5);
      await c.wait(3);
      expect(c.value).toBe(2);
      expect(() => ext.createCounter(-1)).toThrow(DatError);
      ext.createCounter(1);
      expect(() => ext.createCounter(1)).toThrow(/already a target counter/);
      expect(() => ext.registerHandler(1, 'x' as never)).toThrow(/handler must be a function/);
      expect(() => ext.amsend(side.ep, 1, 'x' as never, [])).toThrow(/uhdr must be a Uint8Array/);
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
  });
});
