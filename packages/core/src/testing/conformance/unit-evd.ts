import { expect } from 'vitest';
import type { DatEvent } from '../../dat/events.js';
import { DatStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { delay, expectDatError } from './helpers.js';

/** The event dispatcher on its own: queueing, waiting, cancelling and push notification. */
export function registerEvdTests(h: Harness): void {
  h.test('EVD: dequeue on an empty queue returns undefined', [], async () => {
    const evd = (await h.openIa()).createEvd();
    expect(evd.size).toBe(0);
    expect(evd.dequeue()).toBeUndefined();
  });

  h.test('EVD: software events come out in order, by dequeue and by wait', [], async () => {
    const evd = (await h.openIa()).createEvd();
    for (let i = 0; i < 5; i++) evd.postSoftwareEvent(i);
    expect(evd.size).toBe(5);
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) seen.push(softwareValue(evd.dequeue()));
    for (let i = 0; i < 2; i++) seen.push(softwareValue(await evd.wait({ timeoutMs: h.waitMs })));
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(evd.size).toBe(0);
  });

  h.test('EVD: a waiter is woken by a later event', [], async () => {
    const evd = (await h.openIa()).createEvd();
    const waiting = evd.wait({ timeoutMs: h.waitMs });
    setTimeout(() => evd.postSoftwareEvent('late'), 5);
    expect(softwareValue(await waiting)).toBe('late');
  });

  h.test('EVD: several waiters are served in the order they started waiting', [], async () => {
    const evd = (await h.openIa()).createEvd();
    const first = evd.wait({ timeoutMs: h.waitMs });
    const second = evd.wait({ timeoutMs: h.waitMs });
    evd.postSoftwareEvent(1);
    evd.postSoftwareEvent(2);
    expect([softwareValue(await first), softwareValue(await second)]).toEqual([1, 2]);
  });

  h.test('EVD: wait with a timeout rejects TIMEOUT_EXPIRED, and the queue still works afterwards', [], async () => {
    const evd = (await h.openIa()).createEvd();
    await expectDatError(() => evd.wait({ timeoutMs: 20 }), DatStatus.TIMEOUT_EXPIRED, 'timeoutMs');
    await expectDatError(() => evd.wait({ timeoutMs: 0 }), DatStatus.TIMEOUT_EXPIRED, 'timeoutMs');
    evd.postSoftwareEvent('after');
    expect(softwareValue(await evd.wait({ timeoutMs: h.waitMs }))).toBe('after');
  });

  h.test('EVD: an aborted wait rejects INTERRUPTED_CALL and does not swallow the next event', [], async () => {
    const evd = (await h.openIa()).createEvd();
    const controller = new AbortController();
    const waiting = evd.wait({ signal: controller.signal, timeoutMs: h.waitMs });
    controller.abort();
    await expectDatError(() => waiting, DatStatus.INTERRUPTED_CALL, 'signal');
    await expectDatError(() => evd.wait({ signal: controller.signal }), DatStatus.INTERRUPTED_CALL, 'signal');
    evd.postSoftwareEvent('kept');
    expect(softwareValue(evd.dequeue())).toBe('kept');
  });

  h.test('EVD: setNotify runs after events arrive (not inside the producer), and stops when unset', [], async () => {
    const evd = (await h.openIa()).createEvd();
    const seen: unknown[] = [];
    let calls = 0;
    evd.setNotify((e) => {
      calls++;
      for (let ev = e.dequeue(); ev !== undefined; ev = e.dequeue()) seen.push(softwareValue(ev));
    });
    evd.postSoftwareEvent('a');
    evd.postSoftwareEvent('b');
    expect(calls, 'notify must not run synchronously inside postSoftwareEvent').toBe(0);
    await delay(0);
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(seen).toEqual(['a', 'b']);
    evd.setNotify(undefined);
    const before = calls;
    evd.postSoftwareEvent('c');
    await delay(0);
    expect(calls).toBe(before);
    expect(softwareValue(evd.dequeue())).toBe('c');
  });

  h.test('EVD: setNotify on a queue that already holds events is called for them', [], async () => {
    const evd = (await h.openIa()).createEvd();
    evd.postSoftwareEvent('queued');
    const got = new Promise<unknown>((resolve) => evd.setNotify((e) => resolve(softwareValue(e.dequeue()))));
    const timeout = delay(h.waitMs).then(() => 'no notify');
    expect(await Promise.race([got, timeout])).toBe('queued');
  });

  h.test('EVD: a pending waiter is served before the notify listener', [], async () => {
    const evd = (await h.openIa()).createEvd();
    let notified = 0;
    evd.setNotify(() => notified++);
    const waiting = evd.wait({ timeoutMs: h.waitMs });
    evd.postSoftwareEvent('to-waiter');
    expect(softwareValue(await waiting)).toBe('to-waiter');
    await delay(0);
    expect(notified).toBe(0);
  });

  h.test('EVD: closing the IA rejects a pending wait with INVALID_HANDLE', [], async () => {
    const ia = await h.openIa();
    const evd = ia.createEvd();
    const waiting = evd.wait({ timeoutMs: h.waitMs });
    await ia.close();
    await expectDatError(() => waiting, DatStatus.INVALID_HANDLE, 'evd');
  });
}

function softwareValue(event: DatEvent | undefined): unknown {
  expect(event?.type, 'a software event').toBe('software');
  return (event as { value: unknown }).value;
}
