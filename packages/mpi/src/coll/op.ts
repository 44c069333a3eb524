import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { bufferSpan, type BufferOptions } from '../api/buffer-span.js';
import { Datatype, datatypeOf, unpackRange, type BasicKind } from '../datatype/index.js';
import { packed } from './packing.js';

/** A typed view of packed elements a user function receives for a predefined basic type. */
export type ElementArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array | Float32Array | Float64Array;

/**
 * A user reduction (MPI_User_function): leaves `invec[i] op inoutvec[i]` in `inoutvec[i]` for
 * `len` elements, `invec` coming from the lower ranks. For predefined basic types the vectors are
 * typed arrays of that type; otherwise the packed bytes (`len` elements of `datatype`).
 */
export type UserFunction = (invec: ElementArray, inoutvec: ElementArray, len: number, datatype: Datatype) => void;

type Kernel = (a: ElementArray, b: ElementArray, n: number) => void;

const INTEGER: readonly BasicKind[] = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
const FLOAT: readonly BasicKind[] = ['float32', 'float64'];
/** MPI-3.1 §5.9.2: complex types take SUM and PROD; logical (C_BOOL) ones LAND, LOR and LXOR. */
const COMPLEX: readonly BasicKind[] = ['complex64', 'complex128'];
const LOGICAL: readonly BasicKind[] = [...INTEGER, 'bool'];

interface Predefined {
  readonly name: string;
  /** The basic kinds it applies to (MPI-3.1 §5.9.2); pair types only for MAXLOC / MINLOC. */
  readonly kinds: readonly BasicKind[];
  readonly number: Kernel;
  readonly bigint: Kernel;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the kernels work on every typed array alike */
const k = (f: (x: any, y: any) => any): Kernel => (a: any, b: any, n) => {
  for (let i = 0; i < n; i++) b[i] = f(a[i], b[i]);
};
/* eslint-enable @typescript-eslint/no-explicit-any */

/** 32-bit products must not round: Math.imul keeps the low 32 bits exactly, as C does. */
const mul32: Kernel = (a, b, n) => {
  for (let i = 0; i < n; i++) (b as Int32Array)[i] = Math.imul((a as Int32Array)[i], (b as Int32Array)[i]);
};

const PREDEFINED: Record<string, Predefined> = {
  SUM: { name: 'SUM', kinds: [...INTEGER, ...FLOAT, ...COMPLEX], number: k((x, y) => x + y), bigint: k((x, y) => x + y) },
  PROD: { name: 'PROD', kinds: [...INTEGER, ...FLOAT, ...COMPLEX], number: k((x, y) => x * y), bigint: k((x, y) => x * y) },
  MAX: { name: 'MAX', kinds: [...INTEGER, ...FLOAT], number: k((x, y) => (x > y || Number.isNaN(x) ? x : y)), bigint: k((x, y) => (x > y ? x : y)) },
  MIN: { name: 'MIN', kinds: [...INTEGER, ...FLOAT], number: k((x, y) => (x < y || Number.isNaN(x) ? x : y)), bigint: k((x, y) => (x < y ? x : y)) },
  LAND: { name: 'LAND', kinds: LOGICAL, number: k((x, y) => (x !== 0 && y !== 0 ? 1 : 0)), bigint: k((x, y) => (x !== 0n && y !== 0n ? 1n : 0n)) },
  LOR: { name: 'LOR', kinds: LOGICAL, number: k((x, y) => (x !== 0 || y !== 0 ? 1 : 0)), bigint: k((x, y) => (x !== 0n || y !== 0n ? 1n : 0n)) },
  LXOR: { name: 'LXOR', kinds: LOGICAL, number: k((x, y) => ((x !== 0) !== (y !== 0) ? 1 : 0)), bigint: k((x, y) => ((x !== 0n) !== (y !== 0n) ? 1n : 0n)) },
  BAND: { name: 'BAND', kinds: [...INTEGER, 'byte'], number: k((x, y) => x & y), bigint: k((x, y) => x & y) },
  BOR: { name: 'BOR', kinds: [...INTEGER, 'byte'], number: k((x, y) => x | y), bigint: k((x, y) => x | y) },
  BXOR: { name: 'BXOR', kinds: [...INTEGER, 'byte'], number: k((x, y) => x ^ y), bigint: k((x, y) => x ^ y) },
  // One-sided only (MPI_REPLACE, MPI_NO_OP): the target takes the origin's value, or keeps its own.
  REPLACE: { name: 'REPLACE', kinds: [...INTEGER, ...FLOAT, 'byte'], number: k((x) => x), bigint: k((x) => x) },
  NO_OP: { name: 'NO_OP', kinds: [...INTEGER, ...FLOAT, 'byte'], number: () => undefined, bigint: () => undefined },
};

/** Ops that only one-sided accumulates take (MPI-3.1 §11.3.4). */
const RMA_ONLY = new Set(['REPLACE', 'NO_OP']);

const ELEMENT_BYTES: Record<BasicKind, number> = { int8: 1, uint8: 1, byte: 1, bool: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8, complex64: 8, complex128: 16 };

/** Complex (re, im) pairs, `n` of them, as interleaved floats: b[i] = a[i] · b[i]. */
const complexProduct: Kernel = (a, b, n) => {
  const x = a as Float32Array | Float64Array;
  const y = b as Float32Array | Float64Array;
  for (let i = 0; i < 2 * n; i += 2) {
    const re = x[i] * y[i] - x[i + 1] * y[i + 1];
    y[i + 1] = x[i] * y[i + 1] + x[i + 1] * y[i];
    y[i] = re;
  }
};

/**
 * A typed array of `count` elements of `kind` over `bytes` (a copy when `bytes` is not aligned;
 * `aligned` says which). A complex element is two floats (real, imaginary): 2 × count entries.
 */
export function elements(kind: BasicKind, bytes: Uint8Array, count: number): { array: ElementArray; aligned: boolean } {
  const size = ELEMENT_BYTES[kind];
  const aligned = bytes.byteOffset % size === 0;
  const source = aligned ? bytes : bytes.slice(0, count * size);
  const { buffer, byteOffset } = source;
  const array = (() => {
    switch (kind) {
      case 'int8':
        return new Int8Array(buffer, byteOffset, count);
      case 'uint8':
      case 'byte':
      case 'bool':
        return new Uint8Array(buffer, byteOffset, count);
      case 'int16':
        return new Int16Array(buffer, byteOffset, count);
      case 'uint16':
        return new Uint16Array(buffer, byteOffset, count);
      case 'int32':
        return new Int32Array(buffer, byteOffset, count);
      case 'uint32':
        return new Uint32Array(buffer, byteOffset, count);
      case 'int64':
        return new BigInt64Array(buffer, byteOffset, count);
      case 'uint64':
        return new BigUint64Array(buffer, byteOffset, count);
      case 'float32':
        return new Float32Array(buffer, byteOffset, count);
      case 'float64':
        return new Float64Array(buffer, byteOffset, count);
      case 'complex64':
        return new Float32Array(buffer, byteOffset, 2 * count);
      case 'complex128':
        return new Float64Array(buffer, byteOffset, 2 * count);
    }
  })();
  return { array, aligned };
}

/**
 * A reduction operation (MPI_Op): the predefined ones as static members, user ones from
 * `Op.create(fn, commute)`. A non-commutative op is applied in rank order by every algorithm the
 * library picks for it.
 */
export class Op {
  static readonly SUM = new Op('SUM', true, PREDEFINED.SUM, undefined);
  static readonly PROD = new Op('PROD', true, PREDEFINED.PROD, undefined);
  static readonly MAX = new Op('MAX', true, PREDEFINED.MAX, undefined);
  static readonly MIN = new Op('MIN', true, PREDEFINED.MIN, undefined);
  static readonly LAND = new Op('LAND', true, PREDEFINED.LAND, undefined);
  static readonly LOR = new Op('LOR', true, PREDEFINED.LOR, undefined);
  static readonly LXOR = new Op('LXOR', true, PREDEFINED.LXOR, undefined);
  static readonly BAND = new Op('BAND', true, PREDEFINED.BAND, undefined);
  static readonly BOR = new Op('BOR', true, PREDEFINED.BOR, undefined);
  static readonly BXOR = new Op('BXOR', true, PREDEFINED.BXOR, undefined);
  /** On the pair types (FLOAT_INT, DOUBLE_INT, LONG_INT, TWO_INT, SHORT_INT): the largest value and its lowest index. */
  static readonly MAXLOC = new Op('MAXLOC', true, undefined, undefined, 'max');
  /** On the pair types: the smallest value and its lowest index. */
  static readonly MINLOC = new Op('MINLOC', true, undefined, undefined, 'min');
  /** One-sided accumulates only: the target element becomes the origin's. */
  static readonly REPLACE = new Op('REPLACE', true, PREDEFINED.REPLACE, undefined);
  /** `getAccumulate` / `fetchAndOp` only: the target element is read and left as it is. */
  static readonly NO_OP = new Op('NO_OP', true, PREDEFINED.NO_OP, undefined);

  readonly #predefined: Predefined | undefined;
  readonly #user: UserFunction | undefined;
  readonly #loc: 'max' | 'min' | undefined;
  #freed = false;

  private constructor(
    readonly name: string,
    /** Whether the op is commutative (all predefined ones are). */
    readonly commute: boolean,
    predefined: Predefined | undefined,
    user: UserFunction | undefined,
    loc?: 'max' | 'min',
  ) {
    this.#predefined = predefined;
    this.#user = user;
    this.#loc = loc;
  }

  /** A user op (MPI_Op_create): `fn(invec, inoutvec, len, datatype)`; `commute` false keeps rank order. */
  static create(fn: UserFunction, commute: boolean): Op {
    if (typeof fn !== 'function') throw new MpiError(ErrorClass.ERR_OP, `fn must be a function (invec, inoutvec, len, datatype), got ${describeValue(fn)}`, { argument: 'fn' });
    if (typeof commute !== 'boolean') throw new MpiError(ErrorClass.ERR_ARG, `commute must be a boolean, got ${describeValue(commute)}`, { argument: 'commute' });
    return new Op(`user(${fn.name || 'anonymous'})`, commute, undefined, fn);
  }

  get predefined(): boolean {
    return this.#user === undefined;
  }

  /** MPI_Op_free: later use is ERR_OP. */
  free(): void {
    if (this.predefined) throw new MpiError(ErrorClass.ERR_OP, `predefined op ${this.name} cannot be freed`, { argument: 'op' });
    this.#freed = true;
  }

  /**
   * `inoutbuf = inbuf op inoutbuf`, element by element, in this process (MPI_Reduce_local):
   * `count` elements of `datatype` (both default from `inbuf`). As every local computation of the
   * program, it is not charged to a simulated rank's clock: no communicator names the rank.
   */
  reduceLocal(inbuf: ArrayBufferView, inoutbuf: ArrayBufferView, options: BufferOptions = {}): void {
    const datatype = options.datatype ?? datatypeOf(inbuf, 'inbuf');
    if (!(datatype instanceof Datatype)) throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
    this.check(datatype);
    const input = bufferSpan(inbuf, { datatype, count: options.count }, 'inbuf');
    const inout = bufferSpan(inoutbuf, { datatype, count: input.count }, 'inoutbuf');
    const a = packed(input, true);
    const b = packed(inout, true);
    this.apply(a, b, input.count, datatype);
    if (!inout.program.contiguous && inout.size > 0) unpackRange(inout.program, inout.count, inout.bytes, inout.offset, 0, b, 0, inout.size);
  }

  /** @internal Throws ERR_OP unless this op can reduce `datatype` (checked before anything moves). */
  check(datatype: Datatype, argument = 'op', oneSided = false): void {
    if (this.#freed) throw new MpiError(ErrorClass.ERR_OP, `${argument} (${this.name}) has been freed`, { argument });
    if (this.#user !== undefined) return;
    if (!oneSided && RMA_ONLY.has(this.name)) throw new MpiError(ErrorClass.ERR_OP, `${this.name} applies only to one-sided accumulates, not to reductions`, { argument });
    if (this.#loc !== undefined) {
      if (!datatype.isPair) throw new MpiError(ErrorClass.ERR_OP, `${this.name} applies to the pair types (FLOAT_INT, DOUBLE_INT, LONG_INT, TWO_INT, SHORT_INT), not ${datatype.name}`, { argument });
      return;
    }
    const kind = datatype.uniformBasic;
    if (kind === undefined || datatype.isPair || !this.#predefined!.kinds.includes(kind)) {
      throw new MpiError(ErrorClass.ERR_OP, `${this.name} is not defined on ${datatype.name}; it applies to ${this.#predefined!.kinds.join(', ')} elements`, { argument });
    }
  }

  /** A user function's throw becomes the collective's MPI_ERR_OP, with what it threw as the cause. */
  #applyUser(inv: Uint8Array, inout: Uint8Array, count: number, datatype: Datatype): void {
    const user = this.#user!;
    const kind = datatype.uniformBasic;
    try {
      if (datatype.predefined && kind !== undefined && !datatype.isPair) withElements(kind, inv, inout, count, (a, b) => user(a, b, count, datatype));
      else user(inv, inout, count, datatype);
    } catch (error) {
      throw new MpiError(ErrorClass.ERR_OP, `the user op ${this.name} threw: ${error instanceof Error ? error.message : String(error)}`, { argument: 'op', cause: error });
    }
  }

  /** @internal `inout = in op inout` over `count` elements of `datatype`, both packed. */
  apply(inv: Uint8Array, inout: Uint8Array, count: number, datatype: Datatype): void {
    if (count === 0) return;
    if (this.#loc !== undefined) return applyLoc(this.#loc, inv, inout, count, datatype);
    const kind = datatype.uniformBasic;
    if (this.#user !== undefined) return this.#applyUser(inv, inout, count, datatype);
    const n = (count * datatype.size) / ELEMENT_BYTES[kind!];
    withElements(kind!, inv, inout, n, (a, b) => this.#kernel(kind!)(a, b, n));
  }

  /** The loop for `kind`: bigint for 64-bit integers, exact 32-bit products, complex products; a complex sum adds both halves. */
  #kernel(kind: BasicKind): Kernel {
    const p = this.#predefined!;
    if (kind === 'int64' || kind === 'uint64') return p.bigint;
    if (this.name === 'PROD' && (kind === 'int32' || kind === 'uint32')) return mul32;
    if (kind === 'complex64' || kind === 'complex128') return this.name === 'PROD' ? complexProduct : (a, b, n) => p.number(a, b, 2 * n);
    return p.number;
  }
}

/** Run `body` on typed views of `inv` and `inout`, writing `inout` back if it had to be copied. */
function withElements(kind: BasicKind, inv: Uint8Array, inout: Uint8Array, n: number, body: (a: ElementArray, b: ElementArray) => void): void {
  const a = elements(kind, inv, n).array;
  const b = elements(kind, inout, n);
  body(a, b.array);
  if (!b.aligned) inout.set(new Uint8Array(b.array.buffer, b.array.byteOffset, n * ELEMENT_BYTES[kind]));
}

/** MAXLOC / MINLOC on packed pairs: the value (its basic kind), then an int32 index. */
function applyLoc(which: 'max' | 'min', inv: Uint8Array, inout: Uint8Array, count: number, datatype: Datatype): void {
  const size = datatype.size;
  const valueBytes = size - 4;
  const kind = LOC_VALUE[datatype.pairValue!];
  const a = new DataView(inv.buffer, inv.byteOffset, count * size);
  const b = new DataView(inout.buffer, inout.byteOffset, count * size);
  for (let i = 0, at = 0; i < count; i++, at += size) {
    const x = read(a, at, kind!);
    const y = read(b, at, kind!);
    const xi = a.getInt32(at + valueBytes, true);
    const yi = b.getInt32(at + valueBytes, true);
    const better = which === 'max' ? x > y : x < y;
    if (better || (x === y && xi < yi)) {
      for (let j = 0; j < size; j++) b.setUint8(at + j, a.getUint8(at + j));
    }
  }
}

/** How MAXLOC / MINLOC read a pair's value (by its kind, so that a dup of a pair type reads alike). */
const LOC_VALUE: Partial<Record<BasicKind, 'f64' | 'i64' | 'f32' | 'i32' | 'i16'>> = { float64: 'f64', int64: 'i64', float32: 'f32', int32: 'i32', int16: 'i16' };

function read(view: DataView, at: number, kind: 'f64' | 'i64' | 'f32' | 'i32' | 'i16'): number | bigint {
  switch (kind) {
    case 'f64':
      return view.getFloat64(at, true);
    case 'i64':
      return view.getBigInt64(at, true);
    case 'f32':
      return view.getFloat32(at, true);
    case 'i32':
      return view.getInt32(at, true);
    case 'i16':
      return view.getInt16(at, true);
  }
}
