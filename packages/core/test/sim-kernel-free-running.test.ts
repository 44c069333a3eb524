import { describe, expect, it } from 'vitest';
import { SimKernel } from '../src/sim/sim-kernel.js';

/** A wall-clock pause: timers are not JS work to the settle rule, immediates would be. */
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('SimKernel free-running mode (used by the simulated providers outside kernel.run)', () => {
  it('without it, events wait for run()', async () => {
    const kernel = new SimKernel();
    let fired = false;
    kernel.schedule(10, () => (fired = true));
    await pause(20);
    expect(fired).toBe(false);
  });

  it('processes events in time order as the code awaits, advancing now', async () => {
    const kernel = new SimKernel();
    kernel.enableFreeRunning();
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      kernel.schedule(300, () => {
        order.push(`c@${kernel.now}`);
        resolve();
      });
      kernel.schedule(100, () => {
        order.push(`a@${kernel.now}`);
        kernel.schedule(200, () => order.push(`b@${kernel.now}`));
      });
    });
    expect(order).toEqual(['a@100', 'b@200', 'c@300']);
    expect(kernel.clock(3).nowNs).toBe(300);
  });

  it('events queued before enabling run too, and a cancelled one does not', async () => {
    const kernel = new SimKernel();
    const order: number[] = [];
    const handle = kernel.schedule(5, () => order.push(5));
    kernel.schedule(7, () => order.push(7));
    kernel.cancel(handle);
    kernel.enableFreeRunning();
    await pause(20);
    expect(order).toEqual([7]);
  });

  it('hands over to run(): a run started later drives its own events', async () => {
    const kernel = new SimKernel();
    kernel.enableFreeRunning();
    const result = await kernel.run([async () => kernel.sleep(0, 50)]);
    expect(result.outcome).toBe('completed');
    expect(result.rankEndNs[0]).toBe(50);
  });
});
