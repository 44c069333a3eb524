import type { BufferSpan } from '../adi/transfer.js';
import { Datatype, bufferBytes, datatypeOf, requireFits } from '../datatype/index.js';
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
  const datatype = options.datatype ?? datatypeOf(buf, argument);
  if (!(datatype instanceof Datatype)) {
    throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
  }
  datatype.requireUsable('datatype');
  datatype.requireCommitted('datatype');
  const bytes = bufferBytes(buf);
  const program = datatype.program;
  const count = options.count === undefined ? defaultCount(bytes.length, program.extent) : requireCount(options.count, 'count');
  requireFits(program, count, bytes, 0, argument);
  return { bytes, offset: 0, program, count, size: program.size * count };
}

function defaultCount(byteLength: number, extent: number): number {
  return extent > 0 ? Math.floor(byteLength / extent) : 0;
}
