import { describe, expect, it } from 'vitest';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import { Op, elements } from '../src/coll/op.js';
import { Datatype, type BasicKind } from '../src/datatype/index.js';

const TYPES: [Datatype, BasicKind][] = [
  [Datatype.INT8, 'int8'],
  [Datatype.UINT8, 'uint8'],
  [Datatype.INT16, 'int16'],
  [Datatype.UINT16, 'uint16'],
  [Datatype.INT32, 'int32'],
  [Datatype.UINT32, 'uint32'],
  [Datatype.INT64, 'int64'],
  [Datatype.UINT64, 'uint64'],
  [Datatype.FLOAT32, 'float32'],
  [Datatype.FLOAT64, 'float64'],
  [Datatype.BYTE, 'byte'],
];

type Ref = (a: number, b: number) => number;
const REFERENCE: Record<string, { ref: Ref; on: (k: BasicKind) => boolean }> = {
  SUM: { ref: (a, b) => a + b, on: (k) => k !== 'byte' },
  PROD: { ref: (a, b) => a * b, on: (k) => k !== 'byte' },
  MAX: { ref: Math.max, on: (k) => k !== 'byte' },
  MIN: { ref: Math.min, on: (k) => k !== 'byte' },
  LAND: { ref: (a, b) => (a !== 0 && b !== 0 ? 1 : 0), on: (k) => !k.startsWith('float') && k !== 'byte' },
  LOR: { ref: (a, b) => (a !== 0 || b !== 0 ? 1 : 0), on: (k) => !k.startsWith('float') && k !== 'byte' },
  LXOR: { ref: (a, b) => ((a !== 0) !== (b !== 0) ? 1 : 0), on: (k) => !k.startsWith('float') && k !== 'byte' },
  BAND: { ref: (a, b) => a & b, on: (k) => !k.startsWith('float') },
  BOR: { ref: (a, b) => a | b, on: (k) => !k.startsWith('float') },
  BXOR: { ref: (a, b) => a ^ b, on: (k) => !k.startsWith('float') },
};

/** Values small and non-negative enough that every op's exact result fits every type. */
const A = [0, 1, 2, 3, 5, 7, 0, 6];
const B = [3, 0, 2, 6, 1, 7, 0, 5];

function bytesOf(kind: BasicKind, values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const { array } = elements(kind, bytes, values.length);
  values.forEach((x, i) => (array[i] = (kind.endsWith('64') && !kind.startsWith('float') ? BigInt(x) : x) as never));
  return bytes.subarray(0, array.byteLength);
}

describe('Op: every predefined op on every type it applies to', () => {
  for (const [name, { ref, on }] of Object.entries(REFERENCE)) {
    it(`${name}: the reference result where defined, ERR_OP elsewhere`, () => {
      const op = (Op as unknown as Record<string, Op>)[name];
      for (const [type, kind] of TYPES) {
        if (!on(kind)) {
          expect(() => op.check(type)).toThrowError(MpiError);
          try {
            op.check(type);
          } catch (e) {
            expect((e as MpiError).errorClass).toBe(ErrorClass.ERR_OP);
          }
          continue;
        }
        op.check(type);
        const a = bytesOf(kind, A);
        const b = bytesOf(kind, B);
        op.apply(a, b, A.length, type);
        const got = Array.from(elements(kind, b, A.length).array as ArrayLike<number | bigint>, Number);
        expect(got, `${name} on ${type.name}`).toEqual(A.map((x, i) => ref(x, B[i])));
      }
    });
  }

  it('32-bit products keep their low 32 bits exactly (as C), 64-bit ones wrap', () => {
    const a = bytesOf('int32', [0x10001, -3]);
    const b = bytesOf('int32', [0x10001, 0x7fffffff]);
    Op.PROD.apply(a, b, 2, Datatype.INT32);
    expect([...elements('int32', b, 2).array]).toEqual([Math.imul(0x10001, 0x10001), Math.imul(-3, 0x7fffffff)]);
    const c = new BigInt64Array([2n ** 62n]);
    const d = new BigInt64Array([4n]);
    Op.PROD.apply(new Uint8Array(c.buffer), new Uint8Array(d.buffer), 1, Datatype.INT64);
    expect(d[0]).toBe(0n);
  });

  it('MAXLOC and MINLOC on pairs: the best value, the lowest index on ties; only on pair types', () => {
    const pack = (pairs: [number, number][]) => {
      const out = new Uint8Array(pairs.length * 12);
      const view = new DataView(out.buffer);
      pairs.forEach(([v, i], k) => {
        view.setFloat64(12 * k, v, true);
        view.setInt32(12 * k + 8, i, true);
      });
      return out;
    };
    const unpack = (bytes: Uint8Array) => Array.from({ length: bytes.length / 12 }, (_, k) => [new DataView(bytes.buffer).getFloat64(12 * k, true), new DataView(bytes.buffer).getInt32(12 * k + 8, true)]);
    const inv = pack([[5, 1], [2, 3], [7, 9]]);
    const max = pack([[4, 0], [2, 1], [8, 2]]);
    Op.MAXLOC.apply(inv, max, 3, Datatype.DOUBLE_INT);
    expect(unpack(max)).toEqual([[5, 1], [2, 1], [8, 2]]);
    const min = pack([[4, 0], [2, 5], [8, 2]]);
    Op.MINLOC.apply(pack([[5, 1], [2, 3], [7, 9]]), min, 3, Datatype.DOUBLE_INT);
    expect(unpack(min)).toEqual([[4, 0], [2, 3], [7, 9]]);
    expect(() => Op.MAXLOC.check(Datatype.FLOAT64)).toThrowError(/pair types/);
    expect(() => Op.SUM.check(Datatype.DOUBLE_INT)).toThrowError(MpiError);
  });

  it('user ops get typed views for predefined types, bytes otherwise; create and free are checked', () => {
    const seen: string[] = [];
    const op = Op.create((inv, inout, len, type) => {
      seen.push(`${inv.constructor.name} ${len} ${type.name}`);
      for (let i = 0; i < len; i++) (inout as Float64Array)[i] = (inv as Float64Array)[i] - (inout as Float64Array)[i];
    }, false);
    expect(op.commute).toBe(false);
    const a = new Float64Array([10, 20]);
    const b = new Float64Array([1, 2]);
    op.apply(new Uint8Array(a.buffer), new Uint8Array(b.buffer), 2, Datatype.FLOAT64);
    expect([...b]).toEqual([9, 18]);
    const pair = Datatype.contiguous(2, Datatype.INT32).commit();
    op.apply(new Uint8Array(8), new Uint8Array(8), 1, pair);
    expect(seen).toEqual(['Float64Array 2 FLOAT64', 'Uint8Array 1 contiguous(2,INT32)']);
    expect(() => Op.create('add' as never, true)).toThrowError(/fn must be a function/);
    expect(() => Op.create(() => undefined, 1 as never)).toThrowError(/commute must be a boolean/);
    op.free();
    expect(() => op.check(Datatype.FLOAT64)).toThrowError(/freed/);
    expect(() => Op.SUM.free()).toThrowError(/cannot be freed/);
  });
});

describe('Op.reduceLocal (MPI_Reduce_local)', () => {
  it('leaves inbuf op inoutbuf in inoutbuf: predefined ops, a count, a strided type (gaps untouched), MINLOC pairs, inbuf as the left operand', () => {
    const inout = new Float64Array([1, 5, 3]);
    Op.MAX.reduceLocal(new Float64Array([4, 2, 9]), inout);
    expect([...inout]).toEqual([4, 5, 9]);
    const partial = new Int16Array([1, 1, 1]);
    Op.SUM.reduceLocal(new Int16Array([5, 5, 5]), partial, { count: 2 });
    expect([...partial]).toEqual([6, 6, 1]);
    const every2nd = Datatype.resized(Datatype.vector(1, 1, 2, Datatype.INT32), 0, 8).commit();
    const sparse = new Int32Array([2, -1, 3, -1]);
    Op.PROD.reduceLocal(new Int32Array([10, 0, 10, 0]), sparse, { datatype: every2nd, count: 2 });
    expect([...sparse]).toEqual([20, -1, 30, -1]);
    const pairs = new Int32Array([7, 0, 1, 1]); // (value, index) pairs
    Op.MINLOC.reduceLocal(new Int32Array([7, 3, 0, 2]), pairs, { datatype: Datatype.TWO_INT });
    expect([...pairs]).toEqual([7, 0, 0, 2]);
    const order: number[] = [];
    const first = Op.create((a) => order.push(a[0] as number), false);
    first.reduceLocal(new Int32Array([11]), new Int32Array([22]));
    expect(order).toEqual([11]);
  });

  it('refuses an op the type does not allow, a freed op, a non-buffer and an inoutbuf too small, each naming the argument', () => {
    const cases: [() => void, ErrorClass, string][] = [
      [() => Op.LAND.reduceLocal(new Float32Array(2), new Float32Array(2)), ErrorClass.ERR_OP, 'op'],
      [() => Op.SUM.reduceLocal(new Int32Array(2), 'x' as never), ErrorClass.ERR_BUFFER, 'inoutbuf'],
      [() => Op.SUM.reduceLocal(new Int32Array(4), new Int32Array(2)), ErrorClass.ERR_BUFFER, 'inoutbuf'],
      [() => Op.SUM.reduceLocal(new Int32Array(4), new Int32Array(4), { count: -1 }), ErrorClass.ERR_COUNT, 'count'],
    ];
    for (const [call, errorClass, argument] of cases) {
      try {
        call();
        expect.unreachable(`${argument}: no error`);
      } catch (error) {
        expect(error).toBeInstanceOf(MpiError);
        expect((error as MpiError).errorClass).toBe(errorClass);
        expect((error as MpiError).argument).toBe(argument);
      }
    }
  });
});
