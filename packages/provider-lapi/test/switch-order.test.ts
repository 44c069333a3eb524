// The simulated SP switch serves messages in the order their packets reach it, not in the order
// the LAPI calls were made: a short message must not wait at its target for a long one that a busy
// sender puts on the switch only later (the switch is packet-switched, Banikazemi et al. §1).
import { describe, expect, it } from 'vitest';
import { SimKernel } from '@dapl/core';
import { LapiFabric } from '../src/fabric.js';
import { resolveLapiParameters } from '../src/params.js';

describe('lapi switch', () => {
  it('a short message reaches its target before a long one posted earlier whose sender is still busy', async () => {
    const kernel = new SimKernel();
    const fabric = new LapiFabric(kernel, resolveLapiParameters({}));
    const arrived: string[] = [];
    const result = await kernel.run([
      async () => {
        // Node 1's send path first copies 64 KiB for node 3, so its 64 KiB for node 2 reaches the switch later.
        fabric.send(1, 3, 65_536, kernel.now, (what) => arrived.push(what), 'long 1->3');
        fabric.send(1, 2, 65_536, kernel.now, (what) => arrived.push(what), 'long 1->2');
        await kernel.sleep(0, 10_000);
        fabric.send(0, 2, 32, kernel.now, (what) => arrived.push(what), 'short 0->2');
        await kernel.sleep(0, 10_000_000);
      },
    ]);
    expect(result.outcome).toBe('completed');
    expect(arrived).toEqual(['short 0->2', 'long 1->3', 'long 1->2']);
  });
});
