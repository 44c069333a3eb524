import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { Datatype } from './datatype.js';

/** The datatype a buffer's elements are by default: its array's element type (bytes for Uint8Array, Buffer, DataView). */
export function datatypeOf(buffer: unknown, argument: string): Datatype {
  if (buffer instanceof Uint8Array || buffer instanceof Uint8ClampedArray || buffer instanceof DataView) return Datatype.BYTE;
  if (buffer instanceof Int32Array) return Datatype.INT32;
  if (buffer instanceof Float64Array) return Datatype.FLOAT64;
  if (buffer instanceof Float32Array) return Datatype.FLOAT32;
  if (buffer instanceof Int8Array) return Datatype.INT8;
  if (buffer instanceof Int16Array) return Datatype.INT16;
  if (buffer instanceof Uint16Array) return Datatype.UINT16;
  if (buffer instanceof Uint32Array) return Datatype.UINT32;
  if (buffer instanceof BigInt64Array) return Datatype.INT64;
  if (buffer instanceof BigUint64Array) return Datatype.UINT64;
  throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} must be a TypedArray, Buffer or DataView, got ${describeValue(buffer)}`, { argument });
}
