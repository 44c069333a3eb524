// spin=auto is judged while a rank polls, from its own thread's scheduler accounting: polling
// pauses when the thread got less than a third of the CPU time it wanted, three stretches in a row, while other processes had the CPUs, and is tried again later. The
// accounting read is the calling thread's own (a worker's differs from the main thread's).
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { resolveShmParameters, spinPlan } from '../src/params.js';
import { SpinGovernor, threadSchedSample, type SchedSample } from '../src/spin-governor.js';

/**
 * A governor over a scripted accounting on a 2-CPU host: `feed(runMs, waitMs, processMs)` adds to
 * what the thread got and to the process's CPU time (by default the thread's alone: other jobs
 * had the other CPU).
 */
function scripted() {
  let sample: SchedSample | undefined = { runNs: 0, waitNs: 0, processMs: 0 };
  const governor = new SpinGovernor(() => sample, 2);
  return {
    governor,
    feed(runMs: number, waitMs: number, processMs = runMs) {
      sample = { runNs: sample!.runNs + runMs * 1e6, waitNs: sample!.waitNs + waitMs * 1e6, processMs: sample!.processMs + processMs };
    },
    unreadable() {
      sample = undefined;
    },
  };
}

describe('shm: the spin governor', () => {
  it('keeps polling while the thread gets its CPU, and pauses for a second when it keeps waiting for one', () => {
    const { governor, feed } = scripted();
    expect(governor.allows(0)).toBe(true);
    feed(19, 1);
    expect(governor.allows(20)).toBe(true);
    expect(governor.judgements).toBe(1);
    // One or two short stretches (a burst of background work) do not pause it; a third in a row does.
    feed(5, 15);
    expect(governor.allows(40)).toBe(true);
    feed(5, 15);
    expect(governor.allows(60)).toBe(true);
    expect(governor.backoffs).toBe(0);
    feed(5, 15);
    expect(governor.allows(80)).toBe(false);
    expect(governor.backoffs).toBe(1);
    // Paused: no polling, whatever the thread gets meanwhile, until the backoff has passed.
    feed(100, 0);
    expect(governor.allows(500)).toBe(false);
    expect(governor.allows(1080)).toBe(true);
    feed(20, 0);
    expect(governor.allows(1100)).toBe(true);
    expect(governor.backoffs).toBe(1);
  });

  it('a stretch that gets its share between short ones starts the count again', () => {
    const { governor, feed } = scripted();
    governor.allows(0);
    for (const [t, ran, waited] of [[20, 5, 15], [40, 5, 15], [60, 18, 2], [80, 5, 15], [100, 5, 15]]) {
      feed(ran, waited);
      expect(governor.allows(t)).toBe(true);
    }
    expect(governor.backoffs).toBe(0);
  });

  it("goes on polling when the time the thread waited went to the process's own threads", () => {
    const { governor, feed } = scripted();
    governor.allows(0);
    // Each stretch: the thread ran 5 ms of 20 runnable, while the process used 36 ms of the 2 CPUs' 40.
    for (const t of [20, 40, 60, 80, 100]) {
      feed(5, 15, 36);
      expect(governor.allows(t)).toBe(true);
    }
    expect(governor.backoffs).toBe(0);
    expect(governor.ownContention).toBe(5);
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
