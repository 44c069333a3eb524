// spin=auto is judged while a rank polls, from its own thread's scheduler accounting: polling
// pauses when the thread got less than half the CPU time it wanted, and is tried again later. The
// accounting read is the calling thread's own (a worker's differs from the main thread's).
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { resolveShmParameters, spinPlan } from '../src/params.js';
import { SpinGovernor, threadSchedSample, type SchedSample } from '../src/spin-governor.js';

/** A governor over a scripted accounting: `feed(runMs, waitMs)` adds to what the thread got. */
function scripted() {
  let sample: SchedSample | undefined = { runNs: 0, waitNs: 0 };
  const governor = new SpinGovernor(() => sample);
  return {
    governor,
    feed(runMs: number, waitMs: number) {
      sample = { runNs: sample!.runNs + runMs * 1e6, waitNs: sample!.waitNs + waitMs * 1e6 };
    },
    unreadable() {
      sample = undefined;
    },
  };
}

describe('shm: the spin governor', () => {
  it('keeps polling while the thread gets its CPU, and pauses for a second when it waits for one', () => {
    const { governor, feed } = scripted();
    expect(governor.allows(0)).toBe(true);
    feed(19, 1);
    expect(governor.allows(20)).toBe(true);
    expect(governor.judgements).toBe(1);
    feed(8, 12);
    expect(governor.allows(40)).toBe(false);
    expect(governor.backoffs).toBe(1);
    // Paused: no polling, whatever the thread gets meanwhile, until the backoff has passed.
    feed(100, 0);
    expect(governor.allows(500)).toBe(false);
    expect(governor.allows(1040)).toBe(true);
    feed(20, 0);
    expect(governor.allows(1060)).toBe(true);
    expect(governor.backoffs).toBe(1);
  });

  it('judges only the time the thread was runnable: a thread that slept or napped is not judged for it', () => {
    const { governor, feed } = scripted();
    governor.allows(0);
    // 20 ms of wall-clock time, 2 ms of it runnable (asleep otherwise): too little to judge.
    feed(1, 1);
    expect(governor.allows(20)).toBe(true);
    expect(governor.judgements).toBe(0);
    feed(5, 1);
    expect(governor.allows(40)).toBe(true);
    expect(governor.judgements).toBe(1);
  });

  it('starts afresh after a long idle stretch rather than mixing it with the present one', () => {
    const { governor, feed } = scripted();
    governor.allows(0);
    feed(1, 30);
    // The mark is a second old: the next look only sets a new one.
    expect(governor.allows(1000)).toBe(true);
    expect(governor.judgements).toBe(0);
    feed(20, 0);
    expect(governor.allows(1020)).toBe(true);
    expect(governor.backoffs).toBe(0);
  });

  it('allows polling where the accounting cannot be read', () => {
    const { governor, unreadable } = scripted();
    unreadable();
    expect(governor.allows(0)).toBe(true);
    expect(governor.allows(100)).toBe(true);
    expect(SpinGovernor.available(() => undefined)).toBe(false);
  });

  it('reads the calling thread: a worker that spins accounts its runnable time as its own', async () => {
    const main = threadSchedSample();
    expect(main, 'Linux keeps /proc/thread-self/schedstat').toBeDefined();
    const source = `
      const { parentPort } = require('node:worker_threads');
      const { readFileSync } = require('node:fs');
      const read = () => readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ').slice(0, 2).map(Number);
      const before = read();
      const start = process.hrtime.bigint();
      while (process.hrtime.bigint() - start < 60_000_000n);
      const after = read();
      parentPort.postMessage({ runnableNs: after[0] - before[0] + after[1] - before[1], ranNs: after[0] });`;
    const worker = new Worker(source, { eval: true });
    const result = await new Promise<{ runnableNs: number; ranNs: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    // Never asleep for 60 ms: runnable (running or waiting for a CPU) throughout, whatever the host's load.
    expect(result.runnableNs).toBeGreaterThanOrEqual(50e6);
    // The worker's own account: the main thread, which waited on it asleep, did not run for those 60 ms.
    const mainAfter = threadSchedSample()!;
    expect(mainAfter.runNs - main!.runNs).toBeLessThan(result.runnableNs);
  });
});

describe('shm: the spin plan', () => {
  const params = (spin: string) => resolveShmParameters({ spin, spinUs: 300 });
  const busy = () => 8;

  it('on polls regardless, off never', () => {
    expect(spinPlan(params('on'), 64, 2, true, busy)).toEqual({ spinUs: 300, governed: false });
    expect(spinPlan(params('off'), 1, 2, true, () => 0)).toEqual({ spinUs: 0, governed: false });
  });

  it('auto polls, governed, when each rank has a CPU, however loaded the host looks at the start', () => {
    expect(spinPlan(params('auto'), 2, 2, true, busy)).toEqual({ spinUs: 300, governed: true });
    expect(spinPlan(params('auto'), 3, 2, true, () => 0)).toEqual({ spinUs: 0, governed: false });
    expect(spinPlan(params('auto'), undefined, 2, true, () => 0)).toEqual({ spinUs: 0, governed: false });
  });

  it('auto falls back to the load average at the start where the thread cannot be judged', () => {
    expect(spinPlan(params('auto'), 2, 2, false, () => 0.5)).toEqual({ spinUs: 300, governed: false });
    expect(spinPlan(params('auto'), 2, 2, false, busy)).toEqual({ spinUs: 0, governed: false });
  });
});
