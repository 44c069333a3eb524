// LAPI_Rmw and LAPI_Fence on the active-messages extension: values, atomicity, rights, and time.
import { describe, expect, it } from 'vitest';
import { DatError, DatStatus, MemAccess, type ActiveMessages, type RmrTriplet } from '@dapl/core';
import { simPairRunner, type SimPairSide } from '@dapl/core/testing';
import { createLapiProvider, LAPI_MODEL } from '../src/index.js';

const runPair = simPairRunner(createLapiProvider);

function am(side: SimPairSide): ActiveMessages {
  return side.ep.ia.extension('active-messages')!;
}

const word = (remote: RmrTriplet, at: number, length = 8): RmrTriplet => ({ rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + at, length });

/** Rank 0 runs `origin` against rank 1's buffer (which rank 1 first fills with `init`); returns rank 1's buffer afterwards. */
async function against(init: (view: DataView) => void, origin: (ext: ActiveMessages, side: SimPairSide) => Promise<void>, parameters: Record<string, unknown> = {}): Promise<DataView> {
  let target: Uint8Array | undefined;
  let finished!: () => void;
  const done = new Promise<void>((r) => (finished = r));
  const result = await runPair(parameters, 64, async (side) => {
    if (side.rank === 1) {
      target = side.buf;
      init(new DataView(side.buf.buffer, side.buf.byteOffset, 64));
      await done;
      return;
    }
    await side.kernel.sleep(0, 1_000);
    try {
      await origin(am(side), side);
    } finally {
      finished();
    }
  });
  expect(result.failures.map((x) => String(x.error))).toEqual([]);
  return new DataView(target!.buffer, target!.byteOffset, 64);
}

describe('lapi active-messages: rmw', () => {
  it('swap, compare-and-swap (taken and not), fetch-and-add and fetch-and-or return the old value and store the new', async () => {
    const seen: bigint[] = [];
    const view = await against(
      (v) => {
        v.setBigInt64(0, 10n, true);
        v.setBigInt64(8, 5n, true);
        v.setBigInt64(16, 0b1010n, true);
        v.setInt32(24, -7, true);
      },
      async (ext, side) => {
        seen.push(await ext.rmw(side.ep, 'swap', word(side.remote, 0), 99n));
        seen.push(await ext.rmw(side.ep, 'compare-and-swap', word(side.remote, 8), 6n, 5n));
        seen.push(await ext.rmw(side.ep, 'compare-and-swap', word(side.remote, 8), 7n, 5n));
        seen.push(await ext.rmw(side.ep, 'fetch-and-or', word(side.remote, 16), 0b0101n));
        seen.push(await ext.rmw(side.ep, 'fetch-and-add', word(side.remote, 24, 4), 3n));
      },
    );
    expect(seen).toEqual([10n, 5n, 6n, 0b1010n, -7n]);
    expect([view.getBigInt64(0, true), view.getBigInt64(8, true), view.getBigInt64(16, true), view.getInt32(24, true)]).toEqual([99n, 6n, 0b1111n, -4]);
  });

  it('200 concurrent fetch-and-adds are atomic: every old value distinct, the sum complete', async () => {
    let olds: bigint[] = [];
    const view = await against(
      (v) => v.setBigInt64(32, 1000n, true),
      async (ext, side) => {
        olds = await Promise.all(Array.from({ length: 200 }, () => ext.rmw(side.ep, 'fetch-and-add', word(side.remote, 32), 1n)));
      },
    );
    expect(view.getBigInt64(32, true)).toBe(1200n);
    expect(new Set(olds).size).toBe(200);
    expect(olds.slice().sort((a, b) => Number(a - b))).toEqual(Array.from({ length: 200 }, (_, i) => 1000n + BigInt(i)));
  });

  it("a window without write rights, or out of bounds, rejects with the target's status and leaves the word as it was", async () => {
    const errors: unknown[] = [];
    let readOnly: RmrTriplet | undefined;
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    let target: DataView | undefined;
    const result = await runPair({}, 64, async (side) => {
      if (side.rank === 1) {
        target = new DataView(side.buf.buffer, side.buf.byteOffset, 64);
        target.setBigInt64(0, 42n, true);
        readOnly = side.lmr.pz.createRmr().bind(side.lmr, 0, 16, MemAccess.REMOTE_READ);
        await done;
        return;
      }
      await side.kernel.sleep(0, 1_000);
      const ext = am(side);
      for (const remote of [{ ...readOnly!, length: 8 }, word(side.remote, 60)]) {
        await ext.rmw(side.ep, 'swap', remote, 1n).catch((e: unknown) => errors.push(e));
      }
      finished();
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors.every((e) => e instanceof DatError)).toBe(true);
    expect((errors as DatError[]).map((e) => e.status)).toEqual([DatStatus.PRIVILEGES_VIOLATION, DatStatus.PROTECTION_VIOLATION]);
    expect(target!.getBigInt64(0, true)).toBe(42n);
  });

  it('bad arguments are typed errors naming them', async () => {
    const result = await runPair({}, 64, async (side) => {
      if (side.rank === 1) return;
      const ext = am(side);
      const bad: [() => unknown, string][] = [
        [() => ext.rmw(side.ep, 'increment' as never, word(side.remote, 0), 1n), 'op'],
        [() => ext.rmw(side.ep, 'swap', word(side.remote, 0, 2), 1n), 'remote.length'],
        [() => ext.rmw(side.ep, 'swap', word(side.remote, 0), 1 as never), 'operand'],
        [() => ext.rmw(side.ep, 'compare-and-swap', word(side.remote, 0), 1n), 'compare'],
        [() => ext.rmw(side.ep, 'swap', word(side.remote, 0), 1n, 2n), 'compare'],
        [() => ext.rmw({} as never, 'swap', word(side.remote, 0), 1n), 'target'],
      ];
      for (const [call, argument] of bad) {
        let caught: unknown;
        try {
          call();
        } catch (e) {
          caught = e;
        }
        expect(caught, argument).toBeInstanceOf(DatError);
        expect((caught as DatError).argument).toBe(argument);
      }
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
  });

  it('costs the target dispatcher rmwNs in virtual time (two runs differing only in it differ by exactly that)', async () => {
    const timed = async (rmwNs: number) => {
      let took = 0;
      await against(
        () => undefined,
        async (ext, side) => {
          const start = side.clock.nowNs;
          await ext.rmw(side.ep, 'fetch-and-add', word(side.remote, 0), 1n);
          took = side.clock.nowNs - start;
        },
        { rmwNs },
      );
      return took;
    };
    const [base, slower] = [await timed(500), await timed(10_500)];
    expect(base).toBeGreaterThan(500);
    expect(slower - base).toBe(10_000);
  });
});

describe('lapi active-messages: fence', () => {
  it('resolves only when earlier puts have landed at the target; with nothing in flight, at once', async () => {
    const landed: boolean[] = [];
    let peek: Uint8Array | undefined;
    let times = { fenced: 0, empty: 0, start: 0 };
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    const result = await runPair({}, 4096, async (side) => {
      if (side.rank === 1) {
        peek = side.buf;
        await done;
        return;
      }
      await side.kernel.sleep(0, 1_000);
      const ext = am(side);
      side.buf.fill(7, 0, 3000);
      // The time a put's completion (ack) reaches the origin, measured with a counter.
      const completion = ext.createCounter();
      ext.put(side.ep, [{ lmr: side.lmr, offset: 0, length: 3000 }], side.remote, { completion });
      await completion.wait(1);
      const t0 = side.clock.nowNs;
      side.buf.fill(9, 0, 3000);
      ext.put(side.ep, [{ lmr: side.lmr, offset: 0, length: 3000 }], side.remote);
      landed.push(peek!.slice(0, 3000).every((b) => b === 9));
      await ext.fence(side.ep);
      landed.push(peek!.slice(0, 3000).every((b) => b === 9));
      const t1 = side.clock.nowNs;
      await ext.fence();
      times = { start: t0, fenced: t1, empty: side.clock.nowNs };
      finished();
    });
    expect(result.failures.map((x) => String(x.error))).toEqual([]);
    expect(landed).toEqual([false, true]);
    expect(times.fenced).toBeGreaterThan(times.start);
    // An empty fence costs only the call.
    expect(times.empty - times.fenced).toBe(LAPI_MODEL.lapiCallNs);
  });
});
