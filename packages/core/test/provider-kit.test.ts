import { describe, expect, it } from 'vitest';
import { EpState } from '../src/dat/endpoint.js';
import { DatStatus } from '../src/dat/status.js';
import { CreditWindow } from '../src/provider-kit/credit-window.js';
import { transitionEp, type EpInput } from '../src/provider-kit/ep-state.js';
import { Fifo } from '../src/util/fifo.js';
import { createLoopbackProvider } from '../src/testing/loopback/index.js';
import { thrown } from './support/dat-errors.js';

describe('CreditWindow', () => {
  it('hands out at most its capacity and serves waiters in order as credits come back', async () => {
    const window = new CreditWindow(3);
    expect(window.tryTake(2)).toBe(true);
    expect(window.available).toBe(1);
    const served: string[] = [];
    const a = window.take(2).then(() => served.push('a'));
    const b = window.take(1).then(() => served.push('b'));
    // A waiter is queued first: a later tryTake must not jump the queue even if it would fit.
    expect(window.tryTake(1)).toBe(false);
    window.grant(1); // 2 available: a (needs 2) is served, b still waits behind it
    await a;
    await Promise.resolve();
    expect(served).toEqual(['a']);
    expect(window.available).toBe(0);
    window.grant(1);
    await b;
    expect(served).toEqual(['a', 'b']);
    expect(window.available).toBe(0);
  });

  it('refuses grants beyond the capacity and bad amounts', () => {
    const window = new CreditWindow(2);
    expect(thrown(() => window.grant(1)).status).toBe(DatStatus.INVALID_PARAMETER);
    expect(thrown(() => window.take(3)).argument).toBe('n');
    expect(thrown(() => window.take(-1)).argument).toBe('n');
    expect(thrown(() => new CreditWindow(1.5)).argument).toBe('capacity');
  });
});

describe('endpoint state machine', () => {
  const inputs: EpInput[] = ['connect', 'accept', 'established', 'connect-failed', 'disconnect', 'disconnected', 'broken', 'reset', 'free'];

  it('follows the DAT life of an active and a passive endpoint', () => {
    let s = transitionEp(EpState.UNCONNECTED, 'connect');
    expect(s).toBe(EpState.ACTIVE_CONNECTION_PENDING);
    s = transitionEp(s, 'established');
    expect(s).toBe(EpState.CONNECTED);
    s = transitionEp(s, 'disconnect');
    expect(s).toBe(EpState.DISCONNECT_PENDING);
    s = transitionEp(s, 'disconnected');
    expect(s).toBe(EpState.DISCONNECTED);
    expect(transitionEp(s, 'reset')).toBe(EpState.UNCONNECTED);
    expect(transitionEp(transitionEp(EpState.UNCONNECTED, 'accept'), 'established')).toBe(EpState.CONNECTED);
  });

  it('refuses every input that is not allowed, naming where it is', () => {
    const error = thrown(() => transitionEp(EpState.UNCONNECTED, 'disconnected'));
    expect(error.status).toBe(DatStatus.INVALID_STATE);
    expect(error.message).toMatch(/allowed in: .*CONNECTED/);
    for (const input of inputs) expect(thrown(() => transitionEp(EpState.FREED, input)).status).toBe(DatStatus.INVALID_HANDLE);
    // Every state can be freed (except an endpoint freed already).
    for (const state of Object.values(EpState)) if (state !== EpState.FREED) expect(transitionEp(state, 'free')).toBe(EpState.FREED);
  });
});

describe('Fifo', () => {
  it('keeps order across growth and wrap-around', () => {
    const fifo = new Fifo<number>(2);
    const expected: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 7; i++) {
        fifo.push(next);
        expected.push(next++);
      }
      for (let i = 0; i < 5; i++) expect(fifo.shift()).toBe(expected.shift());
    }
    expect(fifo.size).toBe(expected.length);
    expect(fifo.peek()).toBe(expected[0]);
    expect(fifo.at(3)).toBe(expected[3]);
    expect(fifo.drain()).toEqual(expected);
    expect(fifo.shift()).toBeUndefined();
  });
});

describe('EvdQueue timed waits (one timer per EVD)', () => {
  it('expires each wait by its own deadline, in any order of arrival, and leaves the others waiting', async () => {
    const ia = await createLoopbackProvider().openIa();
    const evd = ia.createEvd();
    // Many waits satisfied at once: each leaves its deadline behind in the shared timer.
    for (let i = 0; i < 1000; i++) {
      const got = evd.wait({ timeoutMs: 60_000 });
      evd.postSoftwareEvent(i);
      expect(await got).toMatchObject({ type: 'software', value: i });
    }
    const outcome = (p: Promise<unknown>): Promise<string> =>
      p.then(
        () => 'event',
        (e: { status?: DatStatus }) => (e.status === DatStatus.TIMEOUT_EXPIRED ? 'timeout' : 'other'),
      );
    const started = performance.now();
    const long = outcome(evd.wait({ timeoutMs: 400 }));
    const short = evd.wait({ timeoutMs: 30 });
    const untimed = evd.wait();
    expect(await outcome(short)).toBe('timeout');
    const shortMs = performance.now() - started;
    expect(shortMs).toBeGreaterThanOrEqual(29);
    expect(shortMs).toBeLessThan(400);
    // The short wait left the queue: the next events go to the long one, then the untimed one.
    evd.postSoftwareEvent('a');
    expect(await long).toBe('event');
    evd.postSoftwareEvent('b');
    expect(await untimed).toMatchObject({ type: 'software', value: 'b' });
    const last = outcome(evd.wait({ timeoutMs: 10 }));
    expect(await last).toBe('timeout');
    await ia.close();
  });
});
