import { seededRandom } from '@dapl/core/testing';
import { describe, expect, it } from 'vitest';
import { ErrorClass } from '../src/api/errors.js';
import { Datatype, datatypeOf, packRange, segments, unpackRange } from '../src/datatype/index.js';

/** The type map by hand: [byte offset, length] of every basic value of one element, in order. */
type TypeMap = [number, number][];

/** Reference pack: walk a hand-built type map byte by byte. */
function referencePack(map: TypeMap, extent: number, count: number, base: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let e = 0; e < count; e++) for (const [off, len] of map) for (let i = 0; i < len; i++) out.push(base[e * extent + off + i]);
  return Uint8Array.from(out);
}

const repeat = (map: TypeMap, times: number, stride: number, at = 0): TypeMap => Array.from({ length: times }, (_, k) => map.map(([o, l]) => [at + o + k * stride, l] as [number, number])).flat();

function filled(n: number, seed = 1): Uint8Array {
  const r = seededRandom(seed);
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

function expectMpiError(fn: () => unknown, errorClass: ErrorClass, argument?: string): void {
  try {
    fn();
  } catch (error) {
    expect((error as { name: string }).name).toBe('MpiError');
    expect((error as { errorClass: string }).errorClass).toBe(errorClass);
    if (argument !== undefined) expect((error as { argument: string }).argument).toBe(argument);
    return;
  }
  throw new Error(`expected an MpiError ${errorClass}`);
}

describe('Datatype: bounds and sizes by MPI rules', () => {
  it('predefined types, including the MAXLOC/MINLOC pairs with C padding', () => {
    expect([Datatype.INT8.size, Datatype.INT16.size, Datatype.INT32.size, Datatype.INT64.size, Datatype.FLOAT32.size, Datatype.FLOAT64.size, Datatype.BYTE.size]).toEqual([1, 2, 4, 8, 4, 8, 1]);
    expect([Datatype.DOUBLE_INT.size, Datatype.DOUBLE_INT.extent]).toEqual([12, 16]);
    expect([Datatype.SHORT_INT.size, Datatype.SHORT_INT.extent, Datatype.SHORT_INT.trueUb]).toEqual([6, 8, 8]);
    expect([Datatype.TWO_INT.size, Datatype.TWO_INT.extent]).toEqual([8, 8]);
    expect(Datatype.FLOAT_INT.isPair && Datatype.INT32.predefined && Datatype.INT32.committed).toBe(true);
    expect(Datatype.FLOAT64.uniformBasic).toBe('float64');
  });

  it('vector, hvector, indexed, hindexed, struct, resized', () => {
    const v = Datatype.vector(3, 2, 4, Datatype.INT32); // blocks at 0, 16, 32 of 8 bytes
    expect([v.size, v.lb, v.ub, v.extent, v.trueLb, v.trueUb]).toEqual([24, 0, 40, 40, 0, 40]);
    const hv = Datatype.hvector(2, 1, 12, Datatype.FLOAT64);
    expect([hv.size, hv.extent]).toEqual([16, 20]);
    const ix = Datatype.indexed([1, 3], [4, 0], Datatype.INT16); // blocks at 8 (2 B) and 0 (6 B)
    expect([ix.size, ix.lb, ix.ub, ix.extent]).toEqual([8, 0, 10, 10]);
    const hx = Datatype.hindexed([2, 1], [-8, 16], Datatype.INT32);
    expect([hx.size, hx.lb, hx.ub, hx.trueLb, hx.trueUb]).toEqual([12, -8, 20, -8, 20]);
    const st = Datatype.struct([1, 2], [0, 8], [Datatype.INT8, Datatype.FLOAT64]);
    expect([st.size, st.lb, st.ub, st.extent, st.uniformBasic]).toEqual([17, 0, 24, 24, undefined]);
    const rz = Datatype.resized(st, 0, 32);
    expect([rz.size, rz.lb, rz.extent, rz.trueLb, rz.trueUb]).toEqual([17, 0, 32, 0, 24]);
    const empty = Datatype.contiguous(0, Datatype.FLOAT64);
    expect([empty.size, empty.extent]).toEqual([0, 0]);
  });

  it('datatypeOf maps typed arrays to their element types', () => {
    expect(datatypeOf(new Float32Array(1), 'b')).toBe(Datatype.FLOAT32);
    expect(datatypeOf(new BigUint64Array(1), 'b')).toBe(Datatype.UINT64);
    expect(datatypeOf(Buffer.alloc(1), 'b')).toBe(Datatype.BYTE);
    expect(datatypeOf(new DataView(new ArrayBuffer(2)), 'b')).toBe(Datatype.BYTE);
  });
});

describe('GatherProgram: pack and unpack against a hand-built type map', () => {
  const cases: [string, () => Datatype, TypeMap][] = [
    ['vector(3,2,4,INT32)', () => Datatype.vector(3, 2, 4, Datatype.INT32), repeat([[0, 8]], 3, 16)],
    ['hvector(4,1,6,INT16)', () => Datatype.hvector(4, 1, 6, Datatype.INT16), repeat([[0, 2]], 4, 6)],
    ['indexed([1,3],[4,0],INT16)', () => Datatype.indexed([1, 3], [4, 0], Datatype.INT16), [[8, 2], [0, 6]]],
    ['struct(INT8, 2×FLOAT64)', () => Datatype.struct([1, 2], [0, 8], [Datatype.INT8, Datatype.FLOAT64]), [[0, 1], [8, 16]]],
    ['vector of struct', () => Datatype.vector(2, 1, 2, Datatype.resized(Datatype.struct([1, 1], [0, 4], [Datatype.INT16, Datatype.INT32]), 0, 8)), [[0, 2], [4, 4], [16, 2], [20, 4]]],
    ['contiguous(5, vector)', () => Datatype.contiguous(5, Datatype.vector(2, 1, 3, Datatype.INT8)), repeat([[0, 1], [3, 1]], 5, 4)],
    ['DOUBLE_INT', () => Datatype.DOUBLE_INT, [[0, 12]]],
  ];

  it.each(cases)('%s: whole pack, unpack and segments equal the reference', (_name, make, map) => {
    const t = make().commit();
    const count = 3;
    const span = (count - 1) * t.extent + t.trueUb;
    const base = filled(span, 7);
    const want = referencePack(map, t.extent, count, base);
    const packed = new Uint8Array(t.size * count);
    packRange(t.program, count, base, 0, 0, packed, 0, packed.length);
    expect(packed).toEqual(want);
    const back = new Uint8Array(span);
    unpackRange(t.program, count, back, 0, 0, packed, 0, packed.length);
    expect(referencePack(map, t.extent, count, back)).toEqual(want);
    const segs = segments(t.program, count, 0, 1000)!;
    const fromSegments = segs.offsets.flatMap((o, i) => [...base.subarray(o, o + segs.lengths[i])]);
    expect(Uint8Array.from(fromSegments)).toEqual(want);
    expect(segments(t.program, count, 0, 0)).toBeUndefined();
  });

  it.each(cases)('%s: random pieces of the stream pack and unpack like the whole', (_name, make) => {
    const t = make().commit();
    const count = 5;
    const base = filled((count - 1) * t.extent + t.trueUb, 3);
    const whole = new Uint8Array(t.size * count);
    packRange(t.program, count, base, 0, 0, whole, 0, whole.length);
    const r = seededRandom(11);
    for (let trial = 0; trial < 20; trial++) {
      const pieces = new Uint8Array(whole.length);
      const scattered = new Uint8Array(base.length);
      for (let at = 0; at < whole.length; ) {
        const n = Math.min(whole.length - at, 1 + Math.floor(r() * 13));
        packRange(t.program, count, base, 0, at, pieces, at, n);
        unpackRange(t.program, count, scattered, 0, at, whole, at, n);
        at += n;
      }
      expect(pieces).toEqual(whole);
      const repacked = new Uint8Array(whole.length);
      packRange(t.program, count, scattered, 0, 0, repacked, 0, whole.length);
      expect(repacked).toEqual(whole);
    }
  });

  it('a contiguous type is one block: the program says so and a long one compiles at once', () => {
    const big = Datatype.contiguous(1 << 22, Datatype.BYTE).commit();
    expect(big.program.contiguous).toBe(true);
    expect(big.program.blockOffsets.length).toBe(1);
    expect(Datatype.vector(4, 2, 2, Datatype.INT32).commit().program.contiguous).toBe(true);
    expect(Datatype.vector(4, 1, 2, Datatype.INT32).commit().program.contiguous).toBe(false);
  });

  it('different types with one signature move the same values: vector on one side, contiguous on the other', () => {
    const v = Datatype.vector(4, 1, 3, Datatype.INT32).commit();
    const c = Datatype.contiguous(4, Datatype.INT32).commit();
    const src = Int32Array.from({ length: 12 }, (_, i) => i * 10);
    const packed = new Uint8Array(16);
    expect(v.pack(src, 1, packed, 0)).toBe(16);
    const dst = new Int32Array(4);
    expect(c.unpack(packed, 0, dst, 1)).toBe(16);
    expect([...dst]).toEqual([0, 30, 60, 90]);
  });
});

describe('Datatype: bad input', () => {
  it('answers each with a typed error naming the argument', () => {
    const E = ErrorClass;
    expectMpiError(() => Datatype.contiguous(-1, Datatype.INT32), E.ERR_COUNT, 'count');
    expectMpiError(() => Datatype.contiguous(1.5, Datatype.INT32), E.ERR_COUNT, 'count');
    expectMpiError(() => Datatype.contiguous(2, 'INT32' as never), E.ERR_TYPE, 'oldtype');
    expectMpiError(() => Datatype.vector(2, -1, 2, Datatype.INT32), E.ERR_COUNT, 'blocklength');
    expectMpiError(() => Datatype.vector(2, 1, 0.5, Datatype.INT32), E.ERR_ARG, 'stride');
    expectMpiError(() => Datatype.hvector(2, 1, NaN, Datatype.INT32), E.ERR_ARG, 'strideBytes');
    expectMpiError(() => Datatype.indexed([1, 2], [0], Datatype.INT32), E.ERR_ARG, 'displacements');
    expectMpiError(() => Datatype.indexed('x' as never, [0], Datatype.INT32), E.ERR_ARG, 'blocklengths');
    expectMpiError(() => Datatype.hindexed([1, -2], [0, 4], Datatype.INT32), E.ERR_COUNT, 'blocklengths[1]');
    expectMpiError(() => Datatype.struct([1], [0], [Datatype.INT32, Datatype.INT8]), E.ERR_ARG, 'types');
    expectMpiError(() => Datatype.struct([1], [0], [{} as never]), E.ERR_TYPE, 'types[0]');
    expectMpiError(() => Datatype.resized(Datatype.INT32, 0, 2.5), E.ERR_ARG, 'extent');
    const t = Datatype.vector(2, 1, 2, Datatype.INT32);
    expectMpiError(() => t.program, E.ERR_TYPE, 'datatype');
    expectMpiError(() => t.requireCommitted('datatype'), E.ERR_TYPE, 'datatype');
    expectMpiError(() => t.pack(new Int32Array(4), 1, new Uint8Array(8), 0), E.ERR_TYPE);
    t.commit();
    expectMpiError(() => t.pack(new Int32Array(2), 1, new Uint8Array(8), 0), E.ERR_BUFFER, 'inbuf');
    expectMpiError(() => t.pack(new Int32Array(4), 1, new Uint8Array(4), 0), E.ERR_TRUNCATE, 'outbuf');
    expectMpiError(() => t.pack(new Int32Array(4), 1, new Uint8Array(8), 9), E.ERR_ARG, 'position');
    expectMpiError(() => t.unpack(new Uint8Array(4), 0, new Int32Array(4), 1), E.ERR_TRUNCATE, 'inbuf');
    expectMpiError(() => t.unpack([1] as never, 0, new Int32Array(4), 1), E.ERR_BUFFER, 'inbuf');
    t.free();
    expectMpiError(() => t.commit(), E.ERR_TYPE, 'datatype');
    expectMpiError(() => t.free(), E.ERR_TYPE, 'datatype');
    expectMpiError(() => Datatype.contiguous(2, t), E.ERR_TYPE, 'oldtype');
    expectMpiError(() => Datatype.INT32.free(), E.ERR_TYPE, 'datatype');
    expectMpiError(() => datatypeOf([1, 2], 'buf'), E.ERR_BUFFER, 'buf');
  });

  it('a type built from one that is later freed stays usable', () => {
    const inner = Datatype.vector(2, 1, 2, Datatype.INT16);
    const outer = Datatype.contiguous(2, inner).commit();
    inner.free();
    const out = new Uint8Array(8);
    expect(outer.pack(Int16Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 1, out, 0)).toBe(8);
    // The vector's extent is 6 bytes (3 shorts): the second copy starts at short 3.
    expect([...new Int16Array(out.buffer)]).toEqual([1, 3, 4, 6]);
  });
});
