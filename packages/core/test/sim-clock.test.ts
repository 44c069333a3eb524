import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { SimClock } from '../src/sim/sim-clock.js';
import { SimKernel } from '../src/sim/sim-kernel.js';
import { thrown } from './support/dat-errors.js';

describe('SimClock', () => {
  it('reads the global time while it is ahead of the rank, and its own time once charged past it', () => {
    const time = { now: 0 };
    const clock = new SimClock(time, 10);
    expect(clock.tick).toBe(1e-9);
    expect(clock.nowNs).toBe(0);
    time.now = 500;
    expect(clock.nowNs).toBe(500);
    clock.charge(250);
    expect(clock.nowNs).toBe(750);
    expect(clock.now()).toBeCloseTo(750e-9, 18);
    time.now = 600; // an event for another rank: this rank's own time is still ahead
    expect(clock.nowNs).toBe(750);
    time.now = 2000; // woken at 2000: never behind it
    expect(clock.nowNs).toBe(2000);
  });

  it('chargeCopy charges bytes / copyBytesPerNs; charge(0) and chargeCopy(0) change nothing', () => {
    const clock = new SimClock({ now: 100 }, 4);
    clock.chargeCopy(1000);
    expect(clock.nowNs).toBe(350);
    clock.chargeCopy(2);
    expect(clock.nowNs).toBe(350.5);
    clock.charge(0);
    clock.chargeCopy(0);
    expect(clock.nowNs).toBe(350.5);
  });

  it('advanceTo moves the clock on only when it is behind', () => {
    const clock = new SimClock({ now: 0 }, 10);
    clock.charge(1000);
    clock.advanceTo(400);
    expect(clock.nowNs).toBe(1000);
    clock.advanceTo(1500);
    expect(clock.nowNs).toBe(1500);
  });

  it('rejects bad arguments with INVALID_PARAMETER naming them', () => {
    const clock = new SimClock({ now: 0 }, 10);
    for (const bad of [-1, Number.NaN, Infinity, '5' as unknown as number]) {
      const e = thrown(() => clock.charge(bad));
      expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
      expect(e.argument).toBe('ns');
      expect(thrown(() => clock.advanceTo(bad)).argument).toBe('ns');
    }
    for (const bad of [-1, 1.5, Number.NaN]) expect(thrown(() => clock.chargeCopy(bad)).argument).toBe('bytes');
    expect(thrown(() => new SimClock({ now: 0 }, 0)).argument).toBe('copyBytesPerNs');
    expect(clock.nowNs).toBe(0);
  });

  it('is what SimKernel.clock(rank) gives, one per rank, with the kernel\'s copy speed', () => {
    const kernel = new SimKernel({ copyBytesPerNs: 2 });
    const c0 = kernel.clock(0);
    expect(kernel.clock(0)).toBe(c0);
    expect(kernel.clock(1)).not.toBe(c0);
    c0.chargeCopy(10);
    expect(c0.nowNs).toBe(5);
    expect(kernel.clock(1).nowNs).toBe(0);
    expect(thrown(() => kernel.clock(-1)).argument).toBe('rank');
    expect(thrown(() => new SimKernel({ copyBytesPerNs: -1 })).argument).toBe('options.copyBytesPerNs');
  });

  it('under the kernel, a rank woken at t reads at least t, and its charged time when that is later', async () => {
    const kernel = new SimKernel();
    const seen: number[] = [];
    let wake: (() => void) | undefined;
    const result = await kernel.run([
      async () => {
        await kernel.sleep(0, 700);
        seen.push(kernel.clock(0).nowNs); // woken at 700
        kernel.clock(0).charge(5000); // now at 5700, ahead of the kernel
        await kernel.blockedOn(0, 'a wake-up from rank 1', new Promise<void>((resolve) => (wake = resolve)));
        seen.push(kernel.clock(0).nowNs); // woken at 1000 < 5700: keeps 5700
        await kernel.sleep(0, 0);
        seen.push(kernel.now, kernel.clock(0).nowNs); // a zero sleep from 5700 runs at 5700
      },
      async () => {
        await kernel.sleep(1, 1000);
        kernel.schedule(kernel.clock(1).nowNs, () => wake?.());
      },
    ]);
    expect(seen).toEqual([700, 5700, 5700, 5700]);
    expect(result.rankEndNs).toEqual([5700, 1000]);
  });
});

describe('clock.delay', () => {
  it('resolves at the rank’s time + ns of virtual time (a kernel event)', async () => {
    const kernel = new SimKernel();
    const woke: number[] = [];
    await kernel.run([
      async () => {
        const clock = kernel.clock(0);
        clock.charge(50);
        await clock.delay(1_000);
        woke.push(clock.nowNs);
      },
    ]);
    expect(woke).toEqual([1_050]);
  });
});
