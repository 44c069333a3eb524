import { describe, expect, it } from 'vitest';
import { ErrorClass } from '../src/api/errors.js';
import { Op } from '../src/coll/op.js';
import { Datatype } from '../src/datatype/index.js';
import { WindowMemory } from '../src/rma/apply.js';
import { LockManager, type LockMode } from '../src/rma/lock-manager.js';
import { HEADER_BYTES, RmaKind, emptyRmaHeader, programBytes, readProgram, readRmaHeader, touchedRange, writeProgram, writeRmaHeader } from '../src/rma/wire.js';

const clock = { now: () => 0, tick: 1e-9, charge: () => undefined, chargeCopy: () => undefined, delay: () => Promise.resolve() };

describe('one-sided control header and datatype program', () => {
  it('round-trips every header field', () => {
    const view = new DataView(new ArrayBuffer(HEADER_BYTES));
    const h = { ...emptyRmaHeader(), kind: RmaKind.GET_ACCUMULATE, op: 3, element: 10, flags: 5, count: 123_456, offset: 2 ** 40, value: 17, dataBytes: 4096, programBytes: 80 };
    writeRmaHeader(view, h);
    const got = emptyRmaHeader();
    readRmaHeader(view, HEADER_BYTES, got);
    expect(got).toEqual(h);
  });

  it('refuses a short message and an unknown kind (ERR_INTERN)', () => {
    const view = new DataView(new ArrayBuffer(HEADER_BYTES));
    expect(() => readRmaHeader(view, HEADER_BYTES - 1, emptyRmaHeader())).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_INTERN }));
    view.setUint8(0, 99);
    expect(() => readRmaHeader(view, HEADER_BYTES, emptyRmaHeader())).toThrow(/unknown kind 99/);
  });

  it('round-trips a vector program and scatters with it as the original does', () => {
    const vector = Datatype.vector(3, 2, 4, Datatype.INT32).commit();
    const bytes = new Uint8Array(programBytes(vector.program));
    writeProgram(new DataView(bytes.buffer), 0, vector.program);
    const program = readProgram(new DataView(bytes.buffer), 0, bytes.length);
    expect({ ...program }).toEqual({ ...vector.program });
  });

  it('refuses a program whose blocks do not add up to its size or leave its bounds (ERR_TYPE)', () => {
    const p = Datatype.vector(2, 1, 2, Datatype.INT32).commit().program;
    const bytes = new Uint8Array(programBytes(p));
    const view = new DataView(bytes.buffer);
    writeProgram(view, 0, p);
    view.setFloat64(0, p.size + 1, true);
    expect(() => readProgram(view, 0, bytes.length)).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_TYPE }));
    writeProgram(view, 0, p);
    view.setFloat64(48, 1000, true);
    expect(() => readProgram(view, 0, bytes.length)).toThrow(/outside its bounds/);
    expect(() => readProgram(view, 0, bytes.length - 8)).toThrow(/does not hold/);
  });

  it('the bytes a span touches, for a contiguous and a strided type', () => {
    expect(touchedRange(Datatype.INT32.program, 4, 8)).toEqual({ first: 8, end: 24 });
    expect(touchedRange(Datatype.vector(2, 1, 3, Datatype.INT32).commit().program, 2, 0)).toEqual({ first: 0, end: 32 });
    expect(touchedRange(Datatype.INT32.program, 0, 8)).toEqual({ first: 8, end: 8 });
  });
});

describe('a window at its target', () => {
  it('accumulates element by element with the op (SUM, REPLACE, NO_OP), returning the old values on request', () => {
    const memory = new WindowMemory(new Uint8Array(16), clock);
    const span = { offset: 4, program: Datatype.INT32.program, count: 2 };
    const data = new Uint8Array(Int32Array.of(5, 7).buffer);
    memory.accumulate(span, data, 0, Op.SUM, Datatype.INT32, false);
    const old = memory.accumulate(span, data, 0, Op.SUM, Datatype.INT32, true)!;
    expect([...new Int32Array(old.buffer)]).toEqual([5, 7]);
    expect([...new Int32Array(memory.bytes.buffer)]).toEqual([0, 10, 14, 0]);
    memory.accumulate(span, new Uint8Array(Int32Array.of(1, 2).buffer), 0, Op.REPLACE, Datatype.INT32, false);
    const seen = memory.accumulate(span, new Uint8Array(0), 0, Op.NO_OP, Datatype.INT32, true)!;
    expect([...new Int32Array(seen.buffer)]).toEqual([1, 2]);
  });

  it('compare-and-swap stores only on equality', () => {
    const memory = new WindowMemory(new Uint8Array(8), clock);
    const one = new Uint8Array(BigInt64Array.of(1n).buffer);
    const zero = new Uint8Array(8);
    expect(memory.compareAndSwap(0, 8, one, zero)).toEqual(zero);
    expect(memory.compareAndSwap(0, 8, zero, zero)).toEqual(one);
    expect(memory.bytes).toEqual(one);
  });
});

describe('the lock at a target', () => {
  it('grants shared locks together, an exclusive one alone, in arrival order (a writer is not overtaken by later readers)', () => {
    const granted: string[] = [];
    const lock = new LockManager(clock, (origin: number, mode: LockMode) => granted.push(`${origin}:${mode}`));
    lock.request(1, 'shared');
    lock.request(2, 'shared');
    lock.request(3, 'exclusive');
    lock.request(4, 'shared');
    expect(granted).toEqual(['1:shared', '2:shared']);
    lock.release('shared');
    lock.release('shared');
    expect(granted).toEqual(['1:shared', '2:shared', '3:exclusive']);
    lock.release('exclusive');
    expect(granted).toEqual(['1:shared', '2:shared', '3:exclusive', '4:shared']);
  });
});
