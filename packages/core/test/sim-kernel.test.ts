import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { isDatError, type DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { NetworkModel, type NetworkParameters } from '../src/sim/network-model.js';
import { isSimDeadlockError, SimDeadlockError } from '../src/sim/sim-deadlock-error.js';
import { SimKernel } from '../src/sim/sim-kernel.js';
import { seededRandom } from '../src/testing/seeded-random.js';
import { thrown, rejection } from './support/dat-errors.js';

// One-way time of a B-byte message alone on this network: 100 + (B + 16·packets) / 2 + 1000 + 7 + 50.
const NET: NetworkParameters = {
  nodes: 8,
  latencyNs: 1000,
  bytesPerNs: 2,
  packetBytes: 256,
  packetOverheadBytes: 16,
  injectOverheadNs: 100,
  ejectOverheadNs: 50,
  perHopNs: 7,
};

interface Message {
  readonly src: number;
  readonly dst: number;
  readonly bytes: number;
  readonly tag: number;
}

interface Inbox {
  readonly queue: Message[];
  waiter: ((message: Message) => void) | undefined;
}

/**
 * How a provider uses the kernel, reduced to its bones: a send leaves at the sender's clock, the
 * network model says when it arrives, `schedule` delivers it then, and a receiver blocks through
 * `blockedOn`. Every send and delivery is logged with the virtual time.
 */
class FakeFabric {
  readonly log: string[] = [];
  private readonly inboxes: Inbox[];

  constructor(
    private readonly kernel: SimKernel,
    private readonly net: NetworkModel,
    ranks: number,
    private readonly logging = true,
  ) {
    this.inboxes = Array.from({ length: ranks }, () => ({ queue: [], waiter: undefined }));
  }

  send(src: number, dst: number, bytes: number, tag = 0): void {
    const at = this.kernel.clock(src).nowNs;
    const { arrivesAt } = this.net.transfer(src, dst, bytes, at);
    if (this.logging) this.log.push(`${at} send ${src}->${dst} ${bytes}B #${tag}`);
    this.kernel.schedule(arrivesAt, this.deliver, { src, dst, bytes, tag });
  }

  recv(rank: number): Promise<Message> {
    const inbox = this.inboxes[rank];
    const ready = inbox.queue.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return this.kernel.blockedOn(rank, 'recv() on its inbox', new Promise<Message>((resolve) => (inbox.waiter = resolve)));
  }

  private readonly deliver = (message: Message): void => {
    if (this.logging) this.log.push(`${this.kernel.now} deliver ${message.src}->${message.dst} #${message.tag}`);
    const inbox = this.inboxes[message.dst];
    const waiter = inbox.waiter;
    if (waiter === undefined) {
      inbox.queue.push(message);
      return;
    }
    inbox.waiter = undefined;
    waiter(message);
  };
}

function oneWayNs(bytes: number): number {
  const packets = Math.max(1, Math.ceil(bytes / NET.packetBytes));
  return NET.injectOverheadNs + (bytes + packets * NET.packetOverheadBytes) / NET.bytesPerNs + NET.latencyNs + (NET.perHopNs ?? 0) + NET.ejectOverheadNs;
}

/** Two ranks ping-pong `rounds` times; each charges `chargeNs` of CPU before it answers. */
async function pingPong(rounds: number, bytes: number, chargeNs: number) {
  const kernel = new SimKernel();
  const fabric = new FakeFabric(kernel, new NetworkModel(NET), 2);
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
  const fabric = new FakeFabric(kernel, new NetworkModel(NET), 6);
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
    expect(result.stats.eventsProcessed).toBe(2 * rounds);
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
    const fabric = new FakeFabric(kernel, new NetworkModel(NET), 3);
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

describe('SimKernel deadlocks', () => {
  it('two ranks that both wait for a message first: names rank 0 and rank 1 and what each waits for', async () => {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new NetworkModel(NET), 2);
    const error = await rejection(
      kernel.run([
        async () => {
          await fabric.recv(0);
          fabric.send(0, 1, 8);
        },
        async () => {
          kernel.clock(1).charge(30);
          await kernel.blockedOn(1, 'evd.wait() on its receive EVD', fabric.recv(1));
        },
      ]),
    );
    expect(error).toBeInstanceOf(SimDeadlockError);
    expect(isSimDeadlockError(error)).toBe(true);
    expect(isDatError(error, DatStatus.INTERNAL_ERROR)).toBe(true);
    const deadlock = error as SimDeadlockError;
    expect(deadlock.blocked).toEqual([
      { rank: 0, waitingFor: 'recv() on its inbox' },
      // Nested declarations, in the order they were made.
      { rank: 1, waitingFor: 'recv() on its inbox; evd.wait() on its receive EVD' },
    ]);
    expect(deadlock.message).toContain('deadlock at 0 ns');
    expect(deadlock.message).toContain('2 ranks are blocked');
    expect(deadlock.message.indexOf('rank 0: recv() on its inbox')).toBeGreaterThan(0);
    expect(deadlock.message.indexOf('rank 1: recv() on its inbox; evd.wait() on its receive EVD')).toBeGreaterThan(deadlock.message.indexOf('rank 0:'));
  }, 1000);

  it('a wait described by a function is written when the report is made, not when it was declared', async () => {
    const kernel = new SimKernel();
    let arrived = 0;
    const error = await rejection(
      kernel.run([
        async () => {
          arrived++;
          await kernel.blockedOn(0, () => `a meeting of 3, ${arrived} arrived`, new Promise<void>(() => {}));
        },
        async () => {
          await kernel.sleep(1, 100);
          arrived++;
        },
      ]),
    );
    expect((error as SimDeadlockError).blocked).toEqual([{ rank: 0, waitingFor: 'a meeting of 3, 2 arrived' }]);
  }, 1000);

  it('a description function that throws or returns nothing still gives a report', async () => {
    const kernel = new SimKernel();
    const error = await rejection(
      kernel.run([
        async () => {
          await kernel.blockedOn(0, () => {
            throw new Error('lost track');
          }, new Promise<void>(() => {}));
        },
        async () => {
          await kernel.blockedOn(1, () => '', new Promise<void>(() => {}));
        },
      ]),
    );
    expect((error as SimDeadlockError).blocked).toEqual([
      { rank: 0, waitingFor: 'a wait whose description threw: lost track' },
      { rank: 1, waitingFor: 'a wait whose description returned an empty string' },
    ]);
  }, 1000);

  it('a rank that finished while another waits: names only the waiting one, at the time it happened', async () => {
    const kernel = new SimKernel();
    const error = await rejection(
      kernel.run([
        async () => {
          await kernel.sleep(0, 250);
        },
        async () => {
          await kernel.sleep(1, 100);
          await kernel.blockedOn(1, 'fence()', new Promise<void>(() => {}));
        },
      ]),
    );
    const deadlock = error as SimDeadlockError;
    expect(deadlock.blocked).toEqual([{ rank: 1, waitingFor: 'fence()' }]);
    expect(deadlock.nowNs).toBe(250);
    expect(deadlock.message).toContain('1 rank is blocked');
    expect(deadlock.message).toContain('rank 1: fence()');
    expect(deadlock.message).not.toContain('rank 0');
  }, 1000);

  it('says so when a blocked rank declared no wait', async () => {
    const kernel = new SimKernel();
    const error = await rejection(kernel.run([async () => await new Promise<void>(() => {})]));
    expect((error as SimDeadlockError).blocked).toEqual([{ rank: 0, waitingFor: 'a wait it did not declare (no blockedOn)' }]);
  }, 1000);

  it('forgets a wait once it has settled', async () => {
    const kernel = new SimKernel();
    const error = await rejection(
      kernel.run([
        async () => {
          await kernel.blockedOn(0, 'first wait', Promise.resolve());
          await kernel.blockedOn(0, 'second wait', Promise.reject(new Error('x'))).catch(() => {});
          await kernel.blockedOn(0, 'third wait', new Promise<void>(() => {}));
        },
      ]),
    );
    expect((error as SimDeadlockError).blocked).toEqual([{ rank: 0, waitingFor: 'third wait' }]);
  }, 1000);
});

describe('SimKernel failures, aborts and stops', () => {
  it('a rank whose main rejects ends the run promptly (stopOnFailure by default)', async () => {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new NetworkModel(NET), 3);
    const result = await kernel.run([
      async () => {
        await fabric.recv(0);
      },
      async () => {
        await kernel.sleep(1, 500);
        throw new Error('rank 1 broke');
      },
      async () => {
        await kernel.sleep(2, 1e12);
      },
    ]);
    expect(result.outcome).toBe('failed');
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0].rank).toBe(1);
    expect(result.failures[0].atNs).toBe(500);
    expect((result.failures[0].error as Error).message).toBe('rank 1 broke');
    expect(result.endNs).toBe(500);
    expect(result.pendingEvents).toBe(1); // rank 2's wake-up never ran
    expect(result.rankEndNs.every((t) => Number.isNaN(t))).toBe(true);
  }, 1000);

  it('with stopOnFailure false the others go on; a rank left waiting for the failed one is a deadlock that mentions the failure', async () => {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new NetworkModel(NET), 3);
    const error = await rejection(
      kernel.run(
        [
          async () => {
            await fabric.recv(0);
          },
          async () => {
            await kernel.sleep(1, 500);
            throw new Error('rank 1 broke');
          },
          async () => {
            await kernel.sleep(2, 2000);
          },
        ],
        { stopOnFailure: false },
      ),
    );
    const deadlock = error as SimDeadlockError;
    expect(deadlock.nowNs).toBe(2000);
    expect(deadlock.blocked).toEqual([{ rank: 0, waitingFor: 'recv() on its inbox' }]);
    expect(deadlock.failures.map((f) => f.rank)).toEqual([1]);
    expect(deadlock.message).toContain('rank 1 had failed: rank 1 broke');
  }, 1000);

  it('with stopOnFailure false and every other rank finishing, the outcome is failed', async () => {
    const kernel = new SimKernel();
    const result = await kernel.run(
      [
        async () => {
          throw new Error('at once');
        },
        async () => {
          await kernel.sleep(1, 40);
        },
      ],
      { stopOnFailure: false },
    );
    expect(result.outcome).toBe('failed');
    expect(result.rankEndNs[1]).toBe(40);
    expect(result.failures.map((f) => [f.rank, f.atNs])).toEqual([[0, 0]]);
  });

  it('abort from a rank ends the run promptly with its code and message', async () => {
    const kernel = new SimKernel();
    const result = await kernel.run([
      async () => {
        await kernel.sleep(0, 300);
        kernel.abort(0, 3, 'bad input');
        await new Promise<void>(() => {});
      },
      async () => {
        await kernel.sleep(1, 1e12);
      },
    ]);
    expect(result.outcome).toBe('aborted');
    expect(result.aborted).toEqual({ rank: 0, code: 3, message: 'bad input', atNs: 300 });
    expect(result.endNs).toBe(300);
    // After the end nothing more is scheduled.
    expect(kernel.schedule(400, () => {})).toBe(0);
    expect(thrown(() => kernel.abort(0, 1.5, 'x')).argument).toBe('code');
  }, 1000);

  it('abort from inside an event action stops the rest of that time step', async () => {
    const kernel = new SimKernel();
    const ran: string[] = [];
    const result = await kernel.run([
      async () => {
        kernel.schedule(10, () => {
          ran.push('first');
          kernel.abort(0, 9, 'from an action');
        });
        kernel.schedule(10, () => ran.push('second'));
        await kernel.sleep(0, 20);
      },
    ]);
    expect(ran).toEqual(['first']);
    expect(result.aborted?.code).toBe(9);
  }, 1000);

  it('options.signal ends the run with outcome stopped', async () => {
    const kernel = new SimKernel();
    const controller = new AbortController();
    const result = await kernel.run(
      [
        async () => {
          await kernel.sleep(0, 100);
          controller.abort();
          await kernel.sleep(0, 100);
        },
      ],
      { signal: controller.signal },
    );
    expect(result.outcome).toBe('stopped');
    expect(result.endNs).toBe(100);
    const before = new SimKernel();
    expect((await before.run([async () => {}], { signal: AbortSignal.abort() })).outcome).toBe('stopped');
  }, 1000);
});

describe('SimKernel holds', () => {
  /** Rank 1 sleeps 10 ns at a time, 50 times: any advance of time while rank 0 is held shows. */
  const ticker = (kernel: SimKernel) => async () => {
    for (let i = 0; i < 50; i++) await kernel.sleep(1, 10);
  };

  it('hold keeps time still while a rank does I/O the kernel cannot see', async () => {
    const kernel = new SimKernel();
    let afterIo = -1;
    await kernel.run([
      async () => {
        kernel.hold(0, 'reading its input');
        await readFile(new URL(import.meta.url));
        await readFile(new URL(import.meta.url));
        afterIo = kernel.clock(0).nowNs;
        kernel.release(0);
        await kernel.sleep(0, 5);
      },
      ticker(kernel),
    ]);
    expect(afterIo).toBe(0);
  }, 5000);

  it('startHeld: ranks start held until their first declared wait', async () => {
    const kernel = new SimKernel();
    let afterIo = -1;
    const result = await kernel.run(
      [
        async () => {
          await readFile(new URL(import.meta.url));
          afterIo = kernel.clock(0).nowNs;
          await kernel.sleep(0, 5);
        },
        ticker(kernel),
      ],
      { startHeld: 'loading the program' },
    );
    expect(afterIo).toBe(0);
    expect(result.rankEndNs).toEqual([5, 500]);
  }, 5000);

  it('startWindow: a held rank starts once an earlier one is released, and the virtual times are those of starting all at once', async () => {
    const program = (kernel: SimKernel, log: string[]) =>
      [0, 1, 2, 3].map((r) => async () => {
        log.push(`start ${r}`);
        await readFile(new URL(import.meta.url)); // I/O the kernel cannot see, as an import is
        log.push(`wait ${r}`);
        await kernel.sleep(r, 10 * (r + 1));
      });
    const windowed = new SimKernel();
    const log: string[] = [];
    const inWindow = await windowed.run(program(windowed, log), { startHeld: 'loading the program', startWindow: 2 });
    const together = new SimKernel();
    const atOnce = await together.run(program(together, []), { startHeld: 'loading the program' });
    const at = (entry: string): number => log.indexOf(entry);
    expect(log.slice(0, 2)).toEqual(['start 0', 'start 1']);
    // The n-th release (a first wait) starts rank n + 1.
    const releases = ['wait 0', 'wait 1', 'wait 2'].map(at).sort((x, y) => x - y);
    expect(at('start 2')).toBeGreaterThan(releases[0]!);
    expect(at('start 3')).toBeGreaterThan(releases[1]!);
    expect(inWindow.outcome).toBe('completed');
    expect(inWindow.rankEndNs).toEqual([10, 20, 30, 40]);
    expect(inWindow.rankEndNs).toEqual(atOnce.rankEndNs);
  }, 5000);

  it('a hold that never ends is reported after holdTimeoutMs, naming the rank and why', async () => {
    const kernel = new SimKernel();
    const error = await rejection(
      kernel.run(
        [
          async () => {
            kernel.hold(0, 'loading the program');
            await new Promise<void>(() => {});
          },
        ],
        { holdTimeoutMs: 50 },
      ),
    );
    expect(error.status).toBe(DatStatus.TIMEOUT_EXPIRED);
    expect(error.message).toContain('rank 0: loading the program');
  }, 2000);

  it('holdTimeoutMs bounds the time without a hold ending, not the holds together (ranks loading one after another)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const kernel = new SimKernel();
      const ranks = 4;
      const opened = Array.from({ length: ranks }, () => {
        let resolve = (): void => undefined;
        const promise = new Promise<void>((r) => (resolve = r));
        return { promise, resolve };
      });
      const run = kernel.run(
        opened.map((gate, r) => async () => {
          await gate.promise;
          await kernel.sleep(r, 1);
        }),
        { startHeld: 'loading the program', holdTimeoutMs: 1000 },
      );
      const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
      await settle();
      // 4 × 600 ms of holds: past the timeout in total, never 1000 ms without one ending.
      for (const gate of opened) {
        vi.advanceTimersByTime(600);
        gate.resolve();
        await settle();
      }
      const result = await run;
      expect(result.outcome).toBe('completed');
      expect(result.rankEndNs).toEqual([1, 1, 1, 1]);
    } finally {
      vi.useRealTimers();
    }
  }, 5000);

  it('a rank that polls with setImmediate instead of awaiting is reported after settleTimeoutMs', async () => {
    const kernel = new SimKernel();
    let polling = true;
    const error = await rejection(
      kernel.run(
        [
          async () => {
            while (polling) await new Promise<void>((resolve) => setImmediate(resolve));
          },
        ],
        { settleTimeoutMs: 50 },
      ),
    );
    polling = false;
    expect(error.status).toBe(DatStatus.INTERNAL_ERROR);
    expect(error.message).toContain('options.settleTimeoutMs');
  }, 2000);
});

describe('SimKernel speed', () => {
  const size = 256;
  const laps = 100;
  const chargeNs = 10;

  /** A ring of `size` ranks passing tokens `laps` times round; with `everyRank` each rank starts one (256 events per time step). */
  async function ring(everyRank: boolean) {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new NetworkModel({ ...NET, nodes: size }), size, false);
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
    expect(result.stats.eventsProcessed).toBe(hops);
    expect(result.stats.timeSteps).toBe(hops);
    expect(result.rankEndNs[0]).toBe(hops * oneWayNs(8) + (hops - 1) * chargeNs);
  });

  it('passes 256 tokens at once (no contention: each NIC sends one and receives one at a time)', async () => {
    const result = await ring(true);
    expect(result.stats.eventsProcessed).toBe(size * laps);
    expect(result.stats.timeSteps).toBe(laps);
    expect(new Set(result.rankEndNs)).toEqual(new Set([laps * oneWayNs(8) + (laps - 1) * chargeNs]));
  });
});
