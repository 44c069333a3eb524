import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { isDatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { SimNetwork } from '../src/sim/sim-network.js';
import { isSimDeadlockError, SimDeadlockError } from '../src/sim/sim-deadlock-error.js';
import { SimKernel } from '../src/sim/sim-kernel.js';
import { thrown, rejection } from './support/dat-errors.js';
import { FakeFabric, NET } from './support/sim-fabric.js';

describe('SimKernel deadlocks', () => {
  it('two ranks that both wait for a message first: names rank 0 and rank 1 and what each waits for', async () => {
    const kernel = new SimKernel();
    const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 2);
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
    const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 3);
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
    const fabric = new FakeFabric(kernel, new SimNetwork(kernel, NET), 3);
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

