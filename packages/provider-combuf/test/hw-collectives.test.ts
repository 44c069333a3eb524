import { describe, expect, it } from 'vitest';
import { DatError, DatStatus, isSimDeadlockError, MemAccess, SimKernel, type HwCollectives, type Lmr, type Runtime, type SimClock, type SimDeadlockError } from '@dapl/core';
import { createCombufProvider, nicOverheadNs } from '../src/index.js';
import { resolveCombufParameters } from '../src/params.js';

/** One rank's view: its node's hardware collectives, its registered buffer, its clock. */
interface HwSide {
  readonly rank: number;
  readonly clock: SimClock;
  readonly kernel: SimKernel;
  readonly hw: HwCollectives;
  readonly buf: Uint8Array;
  readonly lmr: Lmr;
}

/** `size` ranks on a fresh kernel and combuf machine (rank r = node r), each with a registered buffer; `body` runs on each. */
async function runRanks(size: number, parameters: Readonly<Record<string, unknown>>, bufBytes: number, body: (side: HwSide) => Promise<void>) {
  const kernel = new SimKernel();
  const provider = createCombufProvider({ kernel, parameters });
  const main = (rank: number) => async (): Promise<void> => {
    const clock = kernel.clock(rank);
    const ia = await provider.openIa({}, { rank, size, clock } as unknown as Runtime);
    try {
      const hw = ia.extension('hw-collectives');
      if (hw === undefined) throw new Error('combuf offers no hw-collectives');
      const buf = new Uint8Array(bufBytes);
      const lmr = ia.createPz().registerLmr(buf, MemAccess.ALL);
      await body({ rank, clock, kernel, hw, buf, lmr });
    } finally {
      await ia.close();
    }
  };
  const result = await kernel.run(Array.from({ length: size }, (_, r) => main(r)));
  expect(result.failures).toEqual([]);
  expect(result.outcome).toBe('completed');
  return result;
}

/** The error `promise` rejects with (the test fails if it resolves). */
async function errorOf(promise: Promise<unknown>): Promise<DatError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof DatError) return e;
    throw e;
  }
  throw new Error('expected a DatError, the call succeeded');
}

const ROW_OF_8 = [0, 1, 2, 3, 4, 5, 6, 7];
/** crossbarWidth 2: four ranks are a 2×2 grid (nodes 0 1 / 2 3). */
const GRID_2X2 = { crossbarWidth: 2 };

describe('combuf hw-collectives', () => {
  it('is listed in the capabilities and the IA query', async () => {
    const combuf = createCombufProvider();
    const ia = await combuf.openIa();
    try {
      expect(combuf.capabilities.extensions).toEqual(['hw-collectives']);
      expect(ia.query().extensions).toEqual(['hw-collectives']);
    } finally {
      await ia.close();
    }
  });

  it('driven directly (no kernel run), a barrier whose members do not all come gives up after connectTimeoutMs naming those that did not arrive', async () => {
    const combuf = createCombufProvider({ parameters: { connectTimeoutMs: 50, crossbarWidth: 2 } });
    const ias = [await combuf.openIa(), await combuf.openIa(), await combuf.openIa()];
    try {
      const hw = ias.map((ia) => ia.extension('hw-collectives')!);
      // A 2×2 grid: nodes 0 1 / 2 3. Node 3 never comes; node 2 comes only for a second round.
      const first = await Promise.all([errorOf(hw[0].barrier([0, 1, 2, 3])), errorOf(hw[1].barrier([0, 1, 2, 3]))]);
      for (const error of first) expect(error).toMatchObject({ status: DatStatus.TIMEOUT_EXPIRED, argument: 'group' });
      expect(first[0].message).toBe('DAT_TIMEOUT_EXPIRED: hardware barrier on nodes [0,1,2,3]: nodes 2, 3 did not arrive within 50 ms');
      // The one that timed out first came all the same: the other does not blame it.
      expect(first[1].message).toContain(': nodes 2, 3 did not arrive');
      // Everyone had left, so that round is over: node 2's is a new one.
      const second = await errorOf(hw[2].barrier([0, 1, 2, 3]));
      expect(second.message).toContain(': nodes 0, 1, 3 did not arrive');
    } finally {
      for (const ia of ias) await ia.close();
    }
  });

  it('under a kernel run, a member that never comes is named in the deadlock report of those waiting for it', async () => {
    const kernel = new SimKernel();
    const provider = createCombufProvider({ kernel, parameters: GRID_2X2 });
    const main = (rank: number) => async (): Promise<void> => {
      const ia = await provider.openIa({}, { rank, size: 4, clock: kernel.clock(rank) } as unknown as Runtime);
      try {
        if (rank !== 3) await ia.extension('hw-collectives')!.barrier([0, 1, 2, 3]);
      } finally {
        await ia.close();
      }
    };
    const error = await kernel.run([0, 1, 2, 3].map(main)).then(() => undefined, (e: unknown) => e);
    expect(isSimDeadlockError(error)).toBe(true);
    const blocked = (error as SimDeadlockError).blocked;
    expect(blocked.map((b) => b.rank)).toEqual([0, 1, 2]);
    for (const b of blocked) expect(b.waitingFor).toMatch(/^hw-collectives barrier on nodes \[0,1,2,3\] at .*, without node 3$/);
  });

  it('usable(): a 2×2 set and a full row are rectangles; an L-shaped set, an empty one, duplicates are not', async () => {
    const usable: Record<string, boolean> = {};
    await runRanks(4, GRID_2X2, 8, async ({ rank, hw }) => {
      if (rank !== 0) return;
      usable['2x2'] = hw.usable([3, 2, 1, 0]);
      usable.row = hw.usable([0, 1]);
      usable.column = hw.usable([1, 3]);
      usable.L = hw.usable([0, 1, 2]);
      usable.diagonal = hw.usable([0, 3]);
      usable.empty = hw.usable([]);
      usable.duplicates = hw.usable([0, 0, 1, 1]);
      usable.outside = hw.usable([0, 1, 1e9]);
    });
    expect(usable).toEqual({ '2x2': true, row: true, column: true, L: false, diagonal: false, empty: false, duplicates: false, outside: false });
    await runRanks(8, {}, 8, async ({ rank, hw }) => {
      if (rank === 0) expect([hw.usable(ROW_OF_8), hw.usable([2, 3, 4]), hw.usable([0, 1, 3])]).toEqual([true, true, false]);
    });
  });

  it('usable(): binary hypercubes anywhere on the grid (1- and 2-cubes of non-adjacent nodes) are usable; other non-rectangles are not', async () => {
    // crossbarWidth 4 and 8 ranks: nodes 0 1 2 3 / 4 5 6 7.
    await runRanks(8, { crossbarWidth: 4 }, 8, async ({ rank, hw }) => {
      if (rank !== 0) return;
      const sets: Record<string, number[]> = { pairApart: [0, 3], square: [0, 2, 4, 6], corners: [0, 3, 4, 7], column: [1, 5], threeApart: [0, 1, 3], notProduct: [0, 2, 5], diagonal: [0, 5], rectangle: [1, 2, 3, 5, 6, 7] };
      const usable = Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, hw.usable(v)]));
      expect(usable).toEqual({ pairApart: true, square: true, corners: true, column: true, threeApart: false, notProduct: false, diagonal: false, rectangle: true });
    });
  });

  it('barrier and broadcast on a hypercube that is not a rectangle ([0, 2, 4, 6] of a 4-wide grid): right data, one finish time, barrier at the last arrival + 8 µs', async () => {
    const cube = [0, 2, 4, 6];
    const barrierLeft: number[] = [];
    const bcastDone: number[] = [];
    const got: Uint8Array[] = [];
    await runRanks(8, { crossbarWidth: 4 }, 256, async ({ rank, clock, hw, buf, lmr }) => {
      if (!cube.includes(rank)) return;
      clock.charge(1_000 * (rank + 1)); // the last member (6) arrives at 7 µs
      await hw.barrier(cube);
      barrierLeft[rank] = clock.nowNs;
      if (rank === 4) buf.fill(44, 16, 80);
      await hw.broadcast(cube, 4, lmr, 16, 64);
      bcastDone[rank] = clock.nowNs;
      got[rank] = buf.slice(0, 96);
    });
    for (const r of cube) {
      expect(barrierLeft[r]).toBe(15_000);
      expect(bcastDone[r]).toBe(bcastDone[0]);
      expect([...got[r].subarray(16, 80)].every((b) => b === 44), `rank ${r}`).toBe(true);
      expect([...got[r].subarray(0, 16), ...got[r].subarray(80)].every((b) => b === 0), `rank ${r} outside`).toBe(true);
    }
    expect(bcastDone[0]).toBeGreaterThan(15_000);
  });

  it('barrier: every member leaves at the last arrival + 8 µs (Tatebe et al. §5.2)', async () => {
    const left: number[] = [];
    await runRanks(4, GRID_2X2, 8, async ({ rank, clock, hw }) => {
      clock.charge(1_000 * (rank + 1)); // arrivals at 1, 2, 3, 4 µs
      await hw.barrier([0, 1, 2, 3]);
      left[rank] = clock.nowNs;
    });
    expect(left).toEqual([12_000, 12_000, 12_000, 12_000]);
  });

  it('barrier on 8 ranks, twice in a row: each round waits for its own last arrival', async () => {
    const left: number[][] = [[], []];
    await runRanks(8, {}, 8, async ({ rank, clock, hw }) => {
      if (rank === 5) clock.charge(30_000);
      await hw.barrier(ROW_OF_8);
      left[0][rank] = clock.nowNs;
      if (rank === 2) clock.charge(1_000);
      await hw.barrier(ROW_OF_8);
      left[1][rank] = clock.nowNs;
    });
    expect(left[0]).toEqual(Array(8).fill(38_000));
    expect(left[1]).toEqual(Array(8).fill(47_000));
  });

  it('broadcast on 8 ranks: the root\'s bytes land at the same offset on every rank, all at one time', async () => {
    const length = 10_000;
    const offset = 100;
    const root = 3;
    const p = resolveCombufParameters({});
    const packets = Math.ceil(length / p.packetBytes);
    const expected = 500 + 2 * nicOverheadNs(p) + (length + packets * p.packetHeaderBytes) / p.linkBytesPerNs + p.linkLatencyNs + 2 * p.crossbarHopNs;
    const done: number[] = [];
    const got: Uint8Array[] = [];
    const pattern = Uint8Array.from({ length }, (_, i) => (i * 7 + 1) & 0xff);
    await runRanks(8, {}, 16_384, async ({ rank, clock, hw, buf, lmr }) => {
      if (rank === root) buf.set(pattern, offset);
      clock.charge(rank === 6 ? 500 : 100);
      await hw.broadcast(ROW_OF_8, root, lmr, offset, length);
      done[rank] = clock.nowNs;
      got[rank] = buf.slice();
    });
    expect(done).toEqual(Array(8).fill(expected));
    for (let r = 0; r < 8; r++) {
      expect(Buffer.from(got[r].subarray(offset, offset + length)).equals(pattern), `rank ${r}`).toBe(true);
      expect(got[r].subarray(0, offset).every((b) => b === 0), `rank ${r} before offset`).toBe(true);
      expect(got[r].subarray(offset + length).every((b) => b === 0), `rank ${r} after`).toBe(true);
    }
  });

  it('refuses a group that is neither a rectangle nor a hypercube (MODEL_NOT_SUPPORTED) and a group without the caller (INVALID_PARAMETER)', async () => {
    const errors: DatError[] = [];
    await runRanks(4, GRID_2X2, 64, async ({ rank, hw, lmr }) => {
      if (rank !== 0) return;
      errors.push(await errorOf(hw.barrier([0, 1, 2])));
      errors.push(await errorOf(hw.broadcast([0, 1, 2], 0, lmr, 0, 8)));
      errors.push(await errorOf(hw.barrier([2, 3])));
      errors.push(await errorOf(hw.broadcast([0, 1], 3, lmr, 0, 8)));
    });
    expect(errors.map((e) => [e.status, e.argument])).toEqual([
      [DatStatus.MODEL_NOT_SUPPORTED, 'group'],
      [DatStatus.MODEL_NOT_SUPPORTED, 'group'],
      [DatStatus.INVALID_PARAMETER, 'group'],
      [DatStatus.INVALID_PARAMETER, 'root'],
    ]);
  });

  it('refuses a broadcast whose members pass different offsets: every member gets INVALID_PARAMETER naming offset', async () => {
    const errors: DatError[] = [];
    await runRanks(4, GRID_2X2, 64, async ({ rank, hw, lmr }) => {
      errors[rank] = await errorOf(hw.broadcast([0, 1, 2, 3], 0, lmr, rank === 2 ? 8 : 0, 16));
    });
    expect(errors.map((e) => [e.status, e.argument])).toEqual(Array(4).fill([DatStatus.INVALID_PARAMETER, 'offset']));
    expect(errors[0].message).toMatch(/node 0 passed 0, node 2 passed 8/);
  });

  it('refuses a second broadcast while one is in flight on the serialized crossbar (INVALID_STATE); it goes once that one ended', async () => {
    const outcome: string[] = [];
    const data: Uint8Array[] = [];
    await runRanks(4, GRID_2X2, 64, async ({ rank, kernel, hw, buf, lmr }) => {
      const group = rank < 2 ? [0, 1] : [2, 3];
      buf.fill(rank + 1, 0, 8);
      try {
        await hw.broadcast(group, group[0], lmr, 0, 8); // both rows start at 0 ns; row 0 met first
        outcome[rank] = 'done';
      } catch (e) {
        if (!(e instanceof DatError)) throw e;
        outcome[rank] = `${e.status} ${e.argument}`;
        await kernel.sleep(rank, 50_000);
        await hw.broadcast(group, group[0], lmr, 0, 8);
        outcome[rank] += ', then done';
      }
      data[rank] = buf.slice(0, 8);
    });
    expect(outcome).toEqual(['done', 'done', `${DatStatus.INVALID_STATE} group, then done`, `${DatStatus.INVALID_STATE} group, then done`]);
    expect(data).toEqual([new Uint8Array(8).fill(1), new Uint8Array(8).fill(1), new Uint8Array(8).fill(3), new Uint8Array(8).fill(3)]);
  });
});
