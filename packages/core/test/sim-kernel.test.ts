import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { SimNetwork } from '../src/sim/sim-network.js';
import { SimKernel } from '../src/sim/sim-kernel.js';
import { seededRandom } from '../src/testing/seeded-random.js';
import { thrown, rejection } from './support/dat-errors.js';
import { FakeFabric, NET, oneWayNs } from './support/sim-fabric.js';

/** Two ranks ping-pong `rounds` times; each charges `chargeNs` of CPU before it answers. */
async function pingPong(rounds: number, bytes: number, chargeNs: number) {
  const kernel = new SimKernel();
  const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 2);
  const result = await kernel.run([
    async () => {
      for (let i = 0; i < rounds; i++) {
        kernel.clock(0).charge(chargeNs);
        fabric.send(0, 1, bytes, i);
        const reply = await fabric.recv(0);
        expect(reply.tag).toBe(i);
      }
    },
    async () => {
      for (let i = 0; i < rounds; i++) {
        const ping = await fabric.recv(1);
        kernel.clock(1).charge(chargeNs);
        fabric.send(1, 0, bytes, ping.tag);
      }
    },
  ]);
  return { kernel, fabric, result };
}

/** Six ranks: every rank sends seeded-random messages to rank 0 (contending for its NIC) and to a neighbour. */
async function contendedScenario() {
  const kernel = new SimKernel();
  const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 6);
  const random = seededRandom(99);
  const sizes = Array.from({ length: 40 }, () => Math.floor(random() * 2000));
  const ranks = Array.from({ length: 6 }, (_, r) => async () => {
    const clock = kernel.clock(r);
    if (r === 0) {
      for (let k = 0; k < 5 * 3; k++) {
        const m = await fabric.recv(0);
        clock.chargeCopy(m.bytes);
        fabric.send(0, m.src, 8, m.tag);
      }
      return;
    }
    for (let k = 0; k < 3; k++) {
      clock.charge(sizes[r * 3 + k] % 97);
      fabric.send(r, 0, sizes[r * 3 + k], r * 100 + k);
      fabric.send(r, (r % 5) + 1, sizes[(r * 7 + k) % 40], r * 1000 + k);
    }
    for (let k = 0; k < 6; k++) await fabric.recv(r); // 3 acks from rank 0, 3 from the neighbour
  });
  const result = await kernel.run(ranks);
  return { log: fabric.log, result };
}

describe('SimKernel.schedule / cancel', () => {
  it('runs events in time order, equal times in scheduling order, with now at each event\'s time', async () => {
    const kernel = new SimKernel();
    const seen: string[] = [];
    await kernel.run([
      async () => {
        kernel.schedule(30, () => seen.push(`c@${kernel.now}`));
        kernel.schedule(10, () => seen.push(`a1@${kernel.now}`));
        kernel.schedule(10, (tag: string) => seen.push(`${tag}@${kernel.now}`), 'a2');
        kernel.schedule(20, () => {
          seen.push(`b@${kernel.now}`);
          kernel.schedule(20, () => seen.push(`b-same-time@${kernel.now}`));
        });
        await kernel.sleep(0, 40);
      },
    ]);
    expect(seen).toEqual(['a1@10', 'a2@10', 'b@20', 'b-same-time@20', 'c@30']);
  });

  it('rejects atNs before now, NaN or infinite with INVALID_PARAMETER naming atNs', async () => {
    const kernel = new SimKernel();
    const errors: DatError[] = [];
    await kernel.run([
      async () => {
        await kernel.sleep(0, 100);
        for (const bad of [99, Number.NaN, Infinity, -1, '200' as unknown as number]) errors.push(thrown(() => kernel.schedule(bad, () => {})));
        errors.push(thrown(() => kernel.schedule(150, 'x' as unknown as () => void)));
        kernel.schedule(100, () => {}); // now itself is allowed
      },
    ]);
    expect(errors.map((e) => [e.status, e.argument])).toEqual([
      ...Array.from({ length: 5 }, () => [DatStatus.INVALID_PARAMETER, 'atNs']),
      [DatStatus.INVALID_PARAMETER, 'action'],
    ]);
    expect(errors[0].message).toContain('now (100 ns)');
  });

  it('cancel drops a queued event; 0 and handles of events that ran are ignored', async () => {
    const kernel = new SimKernel();
    const seen: number[] = [];
    const result = await kernel.run([
      async () => {
        const a = kernel.schedule(10, () => seen.push(10));
        const b = kernel.schedule(20, () => seen.push(20));
        kernel.schedule(30, () => seen.push(30));
        kernel.cancel(b);
        kernel.cancel(0);
        await kernel.sleep(0, 15);
        kernel.cancel(a); // already ran
        // Many cancellations of events that ran must not pile up or cancel anything else.
        const ran: number[] = [];
        for (let i = 0; i < 200; i++) ran.push(kernel.schedule(15, () => {}));
        await kernel.sleep(0, 1);
        for (const h of ran) kernel.cancel(h);
        await kernel.sleep(0, 30);
      },
    ]);
    expect(seen).toEqual([10, 30]);
    expect(thrown(() => kernel.cancel(-1)).argument).toBe('handle');
    expect(result.stats.eventsProcessed).toBe(2 + 200 + 3);
  });
});

describe('SimKernel.run', () => {
  it('ping-pong over a NetworkModel takes exactly the modelled round trip', async () => {
    const rounds = 10;
    const { fabric, result } = await pingPong(rounds, 100, 20);
    const rtt = 2 * (20 + oneWayNs(100)); // 2 × (20 + 100 + 58 + 1000 + 7 + 50) = 2470
    expect(rtt).toBe(2470);
    expect(result.outcome).toBe('completed');
    expect(result.rankEndNs[0]).toBe(rounds * rtt);
    expect(result.endNs).toBe(rounds * rtt);
    expect(fabric.log.slice(0, 4)).toEqual(['20 send 0->1 100B #0', '1235 deliver 0->1 #0', '1255 send 1->0 100B #0', '2470 deliver 1->0 #0']);
    // Two events per message: its first byte at the target (the NIC booked) and its delivery.
    expect(result.stats.eventsProcessed).toBe(2 * 2 * rounds);
  });

  it('is deterministic: the same scenario gives the same event log and times', async () => {
    const first = await contendedScenario();
    const second = await contendedScenario();
    expect(first.result.outcome).toBe('completed');
    expect(first.log.length).toBe(2 * (5 * 3 * 2 + 15)); // sends and deliveries
    expect(second.log).toEqual(first.log);
    expect(second.result.rankEndNs).toEqual(first.result.rankEndNs);
    expect(second.result.stats.eventsProcessed).toBe(first.result.stats.eventsProcessed);
    // Contention really happened: some delivery to rank 0 came later than the message alone would.
    const ping = await pingPong(1, 8, 0);
    expect(Math.max(...first.result.rankEndNs)).toBeGreaterThan(ping.result.endNs);
  });

  it('does not advance time while a woken rank runs through deep await chains, nextTicks and setImmediates', async () => {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 3);
    const deep = async (depth: number): Promise<number> => {
      if (depth === 0) return 0;
      await Promise.resolve();
      await new Promise<void>((resolve) => process.nextTick(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      return 1 + (await deep(depth - 1));
    };
    const microtasksOnly = async (depth: number): Promise<void> => {
      for (let i = 0; i < depth; i++) await (async () => await Promise.resolve())();
    };
    let wokenAt = -1;
    let postedAt = -1;
    await kernel.run([
      async () => {
        await fabric.recv(0);
        wokenAt = kernel.clock(0).nowNs;
        expect(await deep(8)).toBe(8);
        await microtasksOnly(200);
        postedAt = kernel.clock(0).nowNs;
        fabric.send(0, 1, 8, 1);
      },
      async () => {
        fabric.send(1, 0, 8, 0);
        await fabric.recv(1);
      },
      async () => {
        // Events every 10 ns throughout: had time advanced early, rank 0 would read a later time.
        for (let i = 0; i < 400; i++) await kernel.sleep(2, 10);
      },
    ]);
    expect(wokenAt).toBe(oneWayNs(8));
    expect(postedAt).toBe(wokenAt);
    expect(fabric.log[2]).toBe(`${wokenAt} send 0->1 8B #1`);
  });

  it('runs two kernels side by side in one process, each to its own exact times', async () => {
    const [a, b] = await Promise.all([pingPong(20, 100, 0), pingPong(15, 300, 5)]); // 300 B: two packets
    expect(a.result.endNs).toBe(20 * 2 * oneWayNs(100));
    expect(b.result.endNs).toBe(15 * 2 * (5 + oneWayNs(300)));
  });

  it('starts each rank in its own microtask and records when each main ended', async () => {
    const kernel = new SimKernel();
    const order: string[] = [];
    const result = await kernel.run([
      async () => {
        order.push('0 starts');
        await kernel.sleep(0, 50);
      },
      async () => {
        order.push('1 starts');
        kernel.clock(1).charge(7);
      },
    ]);
    expect(order).toEqual(['0 starts', '1 starts']);
    expect(result.rankEndNs).toEqual([50, 7]);
    expect(result.outcome).toBe('completed');
    expect(result.pendingEvents).toBe(0);
  });

  it("runs event actions in the context run() was called in, even after a rank's release() restarted the driver", async () => {
    const storage = new AsyncLocalStorage<string>();
    const kernel = new SimKernel();
    const seenByActions: (string | undefined)[] = [];
    const record = (): void => void seenByActions.push(storage.getStore());
    const result = await storage.run('launcher', () =>
      kernel.run(
        [0, 1].map((r) => () =>
          storage.run(`rank ${r}`, async () => {
            if (r === 1) return kernel.sleep(1, 100);
            kernel.hold(0, 'reading');
            await readFile(new URL(import.meta.url)); // I/O: the driver parks meanwhile
            kernel.release(0); // this queues the driver's next round
            kernel.schedule(kernel.clock(0).nowNs + 10, record);
            await kernel.sleep(0, 20);
            kernel.schedule(kernel.clock(0).nowNs, record);
            await kernel.sleep(0, 1);
          }),
        ),
      ),
    );
    expect(result.outcome).toBe('completed');
    expect(seenByActions).toEqual(['launcher', 'launcher']);
  });

  it('rejects bad arguments and a second run', async () => {
    const kernel = new SimKernel();
    expect(thrown(() => kernel.run([])).argument).toBe('ranks');
    expect(thrown(() => kernel.run([async () => {}, 'x' as unknown as () => Promise<void>])).argument).toBe('ranks[1]');
    expect(thrown(() => kernel.run([async () => {}], { holdTimeoutMs: 0 })).argument).toBe('options.holdTimeoutMs');
    expect(thrown(() => kernel.run([async () => {}], { startHeld: 'loading the program', startWindow: 0 })).argument).toBe('options.startWindow');
    await kernel.run([async () => {}]);
    expect(thrown(() => kernel.run([async () => {}])).status).toBe(DatStatus.INVALID_STATE);
    expect(thrown(() => kernel.blockedOn(1, 'x', Promise.resolve())).argument).toBe('rank'); // the run had 1 rank
    expect(thrown(() => kernel.blockedOn(0, '', Promise.resolve())).argument).toBe('what');
    expect(thrown(() => kernel.blockedOn(0, 'x', 5 as unknown as Promise<void>)).argument).toBe('promise');
  });

  it('rejects with INTERNAL_ERROR when an event\'s action throws', async () => {
    const kernel = new SimKernel();
    const error = await rejection(
      kernel.run([
        async () => {
          kernel.schedule(5, () => {
            throw new Error('provider bug');
          });
          await kernel.sleep(0, 10);
        },
      ]),
    );
    expect(error.status).toBe(DatStatus.INTERNAL_ERROR);
    expect(error.message).toContain('at 5 ns');
    expect(error.message).toContain('provider bug');
    expect((error.cause as Error).message).toBe('provider bug');
  });
});

describe('SimKernel speed', () => {
  const size = 256;
  const laps = 100;
  const chargeNs = 10;

  /** A ring of `size` ranks passing tokens `laps` times round; with `everyRank` each rank starts one (256 events per time step). */
  async function ring(everyRank: boolean) {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new SimNetwork(kernel, { ...NET, nodes: size }), size, false);
    const starts = (r: number) => everyRank || r === 0;
    const ranks = Array.from({ length: size }, (_, r) => async () => {
      const clock = kernel.clock(r);
      const next = (r + 1) % size;
      if (starts(r)) fabric.send(r, next, 8);
      for (let lap = 0; lap < laps; lap++) {
        await fabric.recv(r);
        if (starts(r) && lap === laps - 1) break;
        clock.charge(chargeNs);
        fabric.send(r, next, 8);
      }
    });
    const result = await kernel.run(ranks);
    const { eventsProcessed, wallMs, timeSteps, eventsPerSecond } = result.stats;
    console.log(
      `sim ring, ${everyRank ? 'every rank passing a token' : 'one token'}: ${size} ranks × ${laps} laps = ${eventsProcessed} events ` +
        `in ${timeSteps} time steps, ${wallMs.toFixed(1)} ms: ${Math.round(eventsPerSecond)} events/s`,
    );
    return result;
  }

  it('passes one token 100 laps around a ring of 256 ranks, to the modelled time', async () => {
    const result = await ring(false);
    const hops = size * laps;
    expect(result.outcome).toBe('completed');
    // Two events per hop, at two times: the token's first byte at the next rank, then its delivery.
    expect(result.stats.eventsProcessed).toBe(2 * hops);
    expect(result.stats.timeSteps).toBe(2 * hops);
    expect(result.rankEndNs[0]).toBe(hops * oneWayNs(8) + (hops - 1) * chargeNs);
  });

  it('passes 256 tokens at once (no contention: each NIC sends one and receives one at a time)', async () => {
    const result = await ring(true);
    expect(result.stats.eventsProcessed).toBe(2 * size * laps);
    expect(result.stats.timeSteps).toBe(2 * laps);
    expect(new Set(result.rankEndNs)).toEqual(new Set([laps * oneWayNs(8) + (laps - 1) * chargeNs]));
  });
});
