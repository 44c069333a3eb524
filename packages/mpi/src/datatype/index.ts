// TEMPORARY stand-in for the datatype engine (branch mpi-datatype replaces this file): predefined,
// contiguous types only, with the contract of docs/mpi-design.md.
import { ErrorClass, MpiError } from '../api/errors.js';

export interface GatherProgram {
  readonly size: number;
  readonly extent: number;
  readonly lb: number;
  readonly contiguous: boolean;
  readonly minOffset: number;
  readonly maxOffset: number;
}

export class Datatype {
  readonly committed = true;
  readonly freed = false;
  readonly program: GatherProgram;
  constructor(readonly name: string, readonly size: number) {
    this.program = { size, extent: size, lb: 0, contiguous: true, minOffset: 0, maxOffset: size };
  }
  get extent(): number { return this.size; }
  requireUsable(_argument: string): void {}
  requireCommitted(_argument: string): void {}
  static readonly INT8 = new Datatype('INT8', 1);
  static readonly UINT8 = new Datatype('UINT8', 1);
  static readonly INT16 = new Datatype('INT16', 2);
  static readonly UINT16 = new Datatype('UINT16', 2);
  static readonly INT32 = new Datatype('INT32', 4);
  static readonly UINT32 = new Datatype('UINT32', 4);
  static readonly INT64 = new Datatype('INT64', 8);
  static readonly UINT64 = new Datatype('UINT64', 8);
  static readonly FLOAT32 = new Datatype('FLOAT32', 4);
  static readonly FLOAT64 = new Datatype('FLOAT64', 8);
  static readonly BYTE = new Datatype('BYTE', 1);
}

export function datatypeOf(buffer: unknown, argument: string): Datatype {
  if (buffer instanceof Int8Array) return Datatype.INT8;
  if (buffer instanceof Int16Array) return Datatype.INT16;
  if (buffer instanceof Uint16Array) return Datatype.UINT16;
  if (buffer instanceof Int32Array) return Datatype.INT32;
  if (buffer instanceof Uint32Array) return Datatype.UINT32;
  if (buffer instanceof BigInt64Array) return Datatype.INT64;
  if (buffer instanceof BigUint64Array) return Datatype.UINT64;
  if (buffer instanceof Float32Array) return Datatype.FLOAT32;
  if (buffer instanceof Float64Array) return Datatype.FLOAT64;
  if (ArrayBuffer.isView(buffer)) return Datatype.BYTE;
  throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} must be a TypedArray, Buffer or DataView`, { argument });
}

export function bufferBytes(buffer: ArrayBufferView): Uint8Array {
  return buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function packRange(program: GatherProgram, _count: number, base: Uint8Array, baseOffset: number, packedFrom: number, out: Uint8Array, outOffset: number, length: number): void {
  void program;
  out.set(base.subarray(baseOffset + packedFrom, baseOffset + packedFrom + length), outOffset);
}

export function unpackRange(program: GatherProgram, _count: number, base: Uint8Array, baseOffset: number, packedFrom: number, src: Uint8Array, srcOffset: number, length: number): void {
  void program;
  base.set(src.subarray(srcOffset, srcOffset + length), baseOffset + packedFrom);
}

export function segments(program: GatherProgram, count: number, baseOffset: number, _maxSegments: number): { offsets: number[]; lengths: number[] } | undefined {
  return { offsets: [baseOffset], lengths: [program.size * count] };
}

export function requireFits(program: GatherProgram, count: number, base: Uint8Array, baseOffset: number, argument: string): void {
  if (count === 0) return;
  const end = baseOffset + (count - 1) * program.extent + program.maxOffset;
  if (baseOffset + program.minOffset < 0 || end > base.length) {
    throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} holds ${base.length} bytes; ${count} elements need ${end}`, { argument });
  }
}
