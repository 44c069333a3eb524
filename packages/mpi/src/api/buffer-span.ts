import type { BufferSpan } from '../adi/transfer.js';
import { Datatype, bufferBytes, datatypeOf, elementRegion, type GatherProgram } from '../datatype/index.js';
import { requireCount } from './check.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';

/** How a buffer argument is read: its type and element count (both default from the array). */
export interface BufferOptions {
  /** Default: the array's element type (`Datatype.of(buf)`). */
  readonly datatype?: Datatype;
  /** Elements of `datatype`; default: as many as the buffer holds. */
  readonly count?: number;
}

/** Resolve `buf` with its options into the span a transfer moves, checking everything a transfer relies on. */
export function bufferSpan(buf: unknown, options: BufferOptions, argument: string): BufferSpan {
  if (!ArrayBuffer.isView(buf)) {
    throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} must be a TypedArray, Buffer or DataView, got ${describeValue(buf)}`, { argument });
  }
  // A detached buffer looks empty; only empty ones pay for the check.
  if (buf.byteLength === 0 && isDetached(buf.buffer)) {
    throw new MpiError(ErrorClass.ERR_BUFFER, `${argument}'s ArrayBuffer is detached (transferred to a worker or another owner): it holds no memory to use`, { argument });
  }
  if (options.datatype === undefined && options.count === undefined) return defaultSpan(buf, argument);
  const datatype = options.datatype ?? datatypeOf(buf, argument);
  if (!(datatype instanceof Datatype)) {
    throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
  }
  datatype.requireUsable('datatype');
  datatype.requireCommitted('datatype');
  const view = bufferBytes(buf);
  const program = datatype.program;
  const count = options.count === undefined ? defaultCount(view.length, view.byteOffset, program) : requireCount(options.count, 'count');
  const { bytes, offset } = elementRegion(program, count, view, argument);
  return { bytes, offset, program, count, size: program.size * count };
}

/**
 * The common call, without options: the whole array as its own element type. Predefined types are
 * committed from the start, never freed and contiguous from offset 0, so this needs no checks and
 * builds one object (every send and receive passes here).
 */
function defaultSpan(buf: ArrayBufferView, argument: string): BufferSpan {
  const program = datatypeOf(buf, argument).program;
  const bytes = bufferBytes(buf);
  const count = Math.floor(bytes.length / program.extent);
  return { bytes, offset: 0, program, count, size: program.size * count };
}

/**
 * As many elements as fit: every byte they touch inside the buffer (or, for data before the origin,
 * before it in its ArrayBuffer; none when there is no room there). Not `byteLength / extent`: a
 * type's data may start past its origin, or its extent may end in padding the last element does
 * not need (resized), so that formula may ask for one element too many or too few.
 */
function defaultCount(byteLength: number, byteOffset: number, program: GatherProgram): number {
  const { size, extent, minOffset, maxOffset } = program;
  if (extent <= 0) return 0;
  if (size === 0) return Math.floor(byteLength / extent);
  if (-minOffset > byteOffset || maxOffset > byteLength) return 0;
  return Math.floor((byteLength - maxOffset) / extent) + 1;
}

/** Node 20 has no `ArrayBuffer.prototype.detached`: a view cannot be made on a detached buffer. */
function isDetached(buffer: ArrayBufferLike): boolean {
  if (buffer.byteLength !== 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}
