// SimNetwork books a target's NIC when a message's first byte reaches it, so a target receives
// messages in the order they reach it, not in the order the sends were made: a short message must
// not wait at its target for a long one whose busy sender puts it on the wire only later.
import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { SimKernel } from '../src/sim/sim-kernel.js';
import { SimNetwork } from '../src/sim/sim-network.js';
import { thrown } from './support/dat-errors.js';
import { NET, oneWayNs } from './support/sim-fabric.js';

/** Run `sends` (at virtual time 0, with the kernel) and log each message's name and delivery time. */
async function deliveries(sends: (network: SimNetwork, kernel: SimKernel, log: (what: string) => void) => Promise<void>): Promise<string[]> {
  const kernel = new SimKernel();
  const network = new SimNetwork(kernel, NET);
  const arrived: string[] = [];
  const result = await kernel.run([() => sends(network, kernel, (what) => arrived.push(`${what} @${kernel.now}`))]);
  expect(result.outcome).toBe('completed');
  return arrived;
}

describe('SimNetwork', () => {
  it('a short message reaches its target before a long one sent there earlier whose sender is still busy', async () => {
    const arrived = await deliveries(async (network, kernel, log) => {
      // Node 1's NIC first injects 64 KiB for node 3 (34 816 ns of wire time), so its 64 KiB for node 2 starts only then.
      network.send(1, 3, 65_536, kernel.now, log, 'long 1->3');
      network.send(1, 2, 65_536, kernel.now, log, 'long 1->2');
      await kernel.sleep(0, 10_000);
      network.send(0, 2, 32, kernel.now, log, 'short 0->2');
      await kernel.sleep(0, 1_000_000);
    });
    // The short one is received as if alone (10 000 + 1181); booked at node 2 in call order it would wait
    // for 'long 1->2', whose injection runs from 34 916 to 69 832 (+ 1000 + 7 + 50).
    expect(oneWayNs(32)).toBe(1181);
    expect(oneWayNs(65_536)).toBe(35_973);
    expect(arrived).toEqual(['short 0->2 @11181', 'long 1->3 @35973', 'long 1->2 @70889']);
  });

  it('a message that reaches a busy target streams in after the one already arriving there', async () => {
    const arrived = await deliveries(async (network, kernel, log) => {
      network.send(0, 2, 256, kernel.now, log, 'first 0->2'); // first byte at node 2 at 1107, received at 1293
      await kernel.sleep(0, 100);
      network.send(1, 2, 256, kernel.now, log, 'second 1->2'); // first byte there at 1207: waits for 1293, then 136 + 50
      await kernel.sleep(0, 100_000);
    });
    expect(arrived).toEqual(['first 0->2 @1293', 'second 1->2 @1479']);
  });

  it('messages whose first bytes reach a node at the same time are received in the order they were sent', async () => {
    const arrived = await deliveries(async (network, kernel, log) => {
      network.send(3, 0, 256, kernel.now, log, 'a 3->0');
      network.send(1, 0, 256, kernel.now, log, 'b 1->0');
      network.send(2, 0, 256, kernel.now, log, 'c 2->0');
      await kernel.sleep(0, 100_000);
    });
    expect(arrived).toEqual(['a 3->0 @1293', 'b 1->0 @1479', 'c 2->0 @1665']);
  });

  it('runs `then` afterNs after the target has received the message', async () => {
    const arrived = await deliveries(async (network, kernel, log) => {
      network.send(0, 1, 0, kernel.now, log, 'ack', 250);
      await kernel.sleep(0, 100_000);
    });
    expect(arrived).toEqual([`ack @${oneWayNs(0) + 250}`]);
  });

  it('rejects bad arguments naming them, and books nothing then', () => {
    const kernel = new SimKernel();
    const network = new SimNetwork(kernel, NET);
    const ignore = (): void => undefined;
    expect(thrown(() => network.send(0, 1, 8, 0, 'no' as unknown as () => void, undefined)).argument).toBe('then');
    expect(thrown(() => network.send(0, 1, 8, 0, ignore, undefined, -1)).argument).toBe('afterNs');
    expect(thrown(() => network.send(0, 8, 8, 0, ignore, undefined)).argument).toBe('dst');
    expect(thrown(() => network.send(0, 1, -8, 0, ignore, undefined)).status).toBe(DatStatus.INVALID_PARAMETER);
    expect(network.injectionFreeAt(0)).toBe(0);
  });
});
