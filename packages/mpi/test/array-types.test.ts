import { describe, expect, it } from 'vitest';
import { Op } from '../src/coll/op.js';
import { DISTRIBUTE_DFLT_DARG, Datatype } from '../src/datatype/index.js';

/** The int32 values `type` selects from 0, 1, 2, … (one element). */
function selected(type: Datatype, length: number): number[] {
  const source = Int32Array.from({ length }, (_, k) => k);
  const packed = new Uint8Array(type.size);
  type.commit().pack(source, 1, packed, 0);
  return [...new Int32Array(packed.buffer)];
}

describe('createSubarray and createDarray', () => {
  it('a subarray in C order walks rows, in Fortran order columns', () => {
    // 3 × 4 array, the 2 × 2 block at (1, 1).
    expect(selected(Datatype.createSubarray([3, 4], [2, 2], [1, 1], 'C', Datatype.INT32), 12)).toEqual([5, 6, 9, 10]);
    // Fortran: (i, j) at i + 3j.
    expect(selected(Datatype.createSubarray([3, 4], [2, 2], [1, 1], 'F', Datatype.INT32), 12)).toEqual([4, 5, 7, 8]);
    const t = Datatype.createSubarray([3, 4], [2, 2], [1, 1], 'C', Datatype.INT32);
    expect(t.getExtent()).toEqual({ lb: 0, extent: 48 });
    expect(t.getTrueExtent()).toEqual({ trueLb: 20, trueExtent: 24 });
  });

  it('darray: block and cyclic pieces of a 1-D array; a 2-D block-cyclic piece', () => {
    const dflt = DISTRIBUTE_DFLT_DARG;
    expect(selected(Datatype.createDarray(3, 1, [10], ['block'], [dflt], [3], 'C', Datatype.INT32), 10)).toEqual([4, 5, 6, 7]);
    expect(selected(Datatype.createDarray(3, 2, [10], ['block'], [dflt], [3], 'C', Datatype.INT32), 10)).toEqual([8, 9]);
    expect(selected(Datatype.createDarray(3, 1, [10], ['cyclic'], [2], [3], 'C', Datatype.INT32), 10)).toEqual([2, 3, 8, 9]);
    // 4 × 4 over 2 × 2 processes, rank 1 = grid (0, 1): rows 0–1 block, columns cyclic 1, 3.
    expect(selected(Datatype.createDarray(4, 1, [4, 4], ['block', 'cyclic'], [dflt, 1], [2, 2], 'C', Datatype.INT32), 16)).toEqual([1, 3, 5, 7]);
  });

  it('envelope and contents of a subarray and a dup', () => {
    const t = Datatype.createSubarray([5], [2], [3], 'F', Datatype.UINT8);
    expect(t.getEnvelope()).toEqual({ combiner: 'subarray', numIntegers: 5, numAddresses: 0, numDatatypes: 1 });
    expect(t.getContents().integers).toEqual([1, 5, 2, 3, 57]);
    const d = t.dup();
    expect(d.getEnvelope().combiner).toBe('dup');
    expect(d.getContents().datatypes[0]).toBe(t);
  });
});

describe('complex and boolean reductions', () => {
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

  it('complex SUM adds both halves, PROD multiplies as complex numbers, in float32 and float64', () => {
    for (const [type, Arr] of [
      [Datatype.C_FLOAT_COMPLEX, Float32Array],
      [Datatype.C_DOUBLE_COMPLEX, Float64Array],
    ] as const) {
      const inout = Arr.from([1, 2, 3, -1]);
      Op.PROD.check(type);
      Op.PROD.apply(bytes(Arr.from([3, 4, 0, 1])), bytes(inout), 2, type);
      expect([...inout]).toEqual([-5, 10, 1, 3]); // (3+4i)(1+2i), i(3−i)
      const sum = Arr.from([1, 1, 1, 1]);
      Op.SUM.apply(bytes(Arr.from([1, 2, 3, 4])), bytes(sum), 2, type);
      expect([...sum]).toEqual([2, 3, 4, 5]);
      expect(() => Op.MAX.check(type)).toThrow(/MAX is not defined on C_/);
    }
  });

  it('MAXLOC on a dup of DOUBLE_INT reads the value as a float64, as on DOUBLE_INT', () => {
    const pair = (value: number, index: number) => {
      const b = new Uint8Array(12);
      new DataView(b.buffer).setFloat64(0, value, true);
      new DataView(b.buffer).setInt32(8, index, true);
      return b;
    };
    const twin = Datatype.DOUBLE_INT.dup();
    Op.MAXLOC.check(twin);
    const inout = pair(1.5, 3);
    Op.MAXLOC.apply(pair(2.25, 7), inout, 1, twin);
    expect([new DataView(inout.buffer).getFloat64(0, true), new DataView(inout.buffer).getInt32(8, true)]).toEqual([2.25, 7]);
  });

  it('C_BOOL takes the logical ops, not the arithmetic ones', () => {
    const inout = Uint8Array.from([1, 0, 5, 0]);
    Op.LXOR.apply(Uint8Array.from([1, 1, 0, 0]), inout, 4, Datatype.C_BOOL);
    expect([...inout]).toEqual([0, 1, 1, 0]);
    expect(() => Op.SUM.check(Datatype.C_BOOL)).toThrow(/SUM is not defined on C_BOOL/);
    expect(() => Op.BAND.check(Datatype.C_BOOL)).toThrow(/BAND is not defined on C_BOOL/);
  });
});
