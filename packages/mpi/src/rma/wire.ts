import { ErrorClass, MpiError } from '../api/errors.js';
import { Op } from '../coll/op.js';
import { Datatype, type GatherProgram } from '../datatype/index.js';
import { BlockSink, compileProgram } from '../datatype/gather-program.js';

/** What an RMA message asks of its receiver (the message types of IBM's patent on MPI-2 one-sided communication over LAPI (US 7,694,310), plus the synchronisation ones). */
export enum RmaKind {
  PUT = 1,
  GET = 2,
  ACCUMULATE = 3,
  GET_ACCUMULATE = 4,
  COMPARE_AND_SWAP = 5,
  LOCK = 10,
  LOCK_GRANTED = 11,
  UNLOCK = 12,
  UNLOCK_DONE = 13,
  FLUSH = 14,
  FLUSH_DONE = 15,
  POST = 16,
  COMPLETE = 17,
  /** To itself at `free`: the persistent receive ends. */
  CLOSE = 18,
}

export const enum RmaFlag {
  /** The target's datatype program follows the header (the LAPI one-sided patent's DGSP in the header). */
  PROGRAM = 1,
  /** The data is too large to ride in this message: it follows as a second message (tag DATA). */
  DATA_FOLLOWS = 2,
  /**
   * The program is too large for the header: it leads the second message, before the data (the one-sided
   * patent's header of more than one packet, here of more than one message).
   */
  PROGRAM_FOLLOWS = 4,
}

/** Tags on the window's hidden context. */
export const enum RmaTag {
  /** Every operation's and every synchronisation's first (often only) message. */
  CONTROL = 1,
  /** The data of an operation too large for its control message, origin to target. */
  DATA = 2,
  /** Data an origin asked for (get, getAccumulate, fetchAndOp, compareAndSwap), target to origin. */
  REPLY = 3,
  /** Never sent: a receive on it per member fails only when that member is lost. */
  SENTINEL = 4,
}

/** The fixed part of a control message. */
export const HEADER_BYTES = 32;
/** Data up to this many bytes rides in the control message; larger data follows as a message of its own. */
export const INLINE_BYTES = 4096;
/** The largest program that rides in the control message; a larger one travels with the data. */
export const INLINE_PROGRAM_BYTES = 2048;
/** What one control receive holds. */
export const CONTROL_BYTES = HEADER_BYTES + INLINE_PROGRAM_BYTES + INLINE_BYTES;

/** Types whose values an accumulate combines and a header names by index. */
export const ELEMENT_TYPES: readonly Datatype[] = [
  Datatype.BYTE, Datatype.INT8, Datatype.UINT8, Datatype.INT16, Datatype.UINT16, Datatype.INT32, Datatype.UINT32,
  Datatype.INT64, Datatype.UINT64, Datatype.FLOAT32, Datatype.FLOAT64,
  Datatype.FLOAT_INT, Datatype.DOUBLE_INT, Datatype.LONG_INT, Datatype.TWO_INT, Datatype.SHORT_INT,
];
/** Predefined ops by index. */
export const OPS: readonly Op[] = [Op.SUM, Op.PROD, Op.MAX, Op.MIN, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR, Op.BXOR, Op.MAXLOC, Op.MINLOC, Op.REPLACE, Op.NO_OP];
export const NO_INDEX = 255;

/** A control message's header, decoded (one object per rank, reused). */
export interface RmaHeader {
  kind: RmaKind;
  op: number;
  element: number;
  flags: number;
  /** Elements of the target's type. */
  count: number;
  /** Byte offset in the target's window. */
  offset: number;
  /** A synchronisation's operation count, a lock's mode (1 exclusive). */
  value: number;
  dataBytes: number;
  programBytes: number;
}

export function emptyRmaHeader(): RmaHeader {
  return { kind: RmaKind.PUT, op: NO_INDEX, element: NO_INDEX, flags: 0, count: 0, offset: 0, value: 0, dataBytes: 0, programBytes: 0 };
}

export function writeRmaHeader(view: DataView, h: RmaHeader): void {
  view.setUint8(0, h.kind);
  view.setUint8(1, h.op);
  view.setUint8(2, h.element);
  view.setUint8(3, h.flags);
  view.setUint32(4, h.count, true);
  view.setFloat64(8, h.offset, true);
  view.setFloat64(16, h.value, true);
  view.setUint32(24, h.dataBytes, true);
  view.setUint32(28, h.programBytes, true);
}

/** Decode; ERR_INTERN on a message too short or of an unknown kind (a corrupt or foreign message). */
export function readRmaHeader(view: DataView, length: number, h: RmaHeader): void {
  if (length < HEADER_BYTES) throw new MpiError(ErrorClass.ERR_INTERN, `an RMA message of ${length} bytes is shorter than its ${HEADER_BYTES}-byte header`);
  h.kind = view.getUint8(0);
  if (RmaKind[h.kind] === undefined) throw new MpiError(ErrorClass.ERR_INTERN, `an RMA message of unknown kind ${h.kind}`);
  h.op = view.getUint8(1);
  h.element = view.getUint8(2);
  h.flags = view.getUint8(3);
  h.count = view.getUint32(4, true);
  h.offset = view.getFloat64(8, true);
  h.value = view.getFloat64(16, true);
  h.dataBytes = view.getUint32(24, true);
  h.programBytes = view.getUint32(28, true);
}

/** Bytes a program takes on the wire. */
export function programBytes(p: GatherProgram): number {
  return 8 * (6 + 2 * p.blockOffsets.length);
}

/** Encode `p` at `view[at…]` (size, extent, lb, bounds, blocks). */
export function writeProgram(view: DataView, at: number, p: GatherProgram): void {
  const n = p.blockOffsets.length;
  const fields = [p.size, p.extent, p.lb, p.minOffset, p.maxOffset, n];
  for (let i = 0; i < 6; i++) view.setFloat64(at + 8 * i, fields[i], true);
  for (let b = 0; b < n; b++) {
    view.setFloat64(at + 48 + 16 * b, p.blockOffsets[b], true);
    view.setFloat64(at + 56 + 16 * b, p.blockLengths[b], true);
  }
}

/** Decode a program; ERR_TYPE when it does not add up (a lying or corrupt origin). */
export function readProgram(view: DataView, at: number, length: number): GatherProgram {
  const field = (i: number): number => view.getFloat64(at + 8 * i, true);
  const [size, extent, lb, minOffset, maxOffset, n] = [field(0), field(1), field(2), field(3), field(4), field(5)];
  if (!Number.isInteger(n) || n < 0 || 48 + 16 * n !== length) throw new MpiError(ErrorClass.ERR_TYPE, `an RMA datatype program of ${length} bytes does not hold ${n} blocks`);
  const sink = new BlockSink();
  let total = 0;
  for (let b = 0; b < n; b++) {
    const offset = view.getFloat64(at + 48 + 16 * b, true);
    const blockLength = view.getFloat64(at + 56 + 16 * b, true);
    if (offset < minOffset || offset + blockLength > maxOffset || blockLength < 0) throw new MpiError(ErrorClass.ERR_TYPE, `an RMA datatype program's block [${offset}, ${offset + blockLength}) lies outside its bounds [${minOffset}, ${maxOffset})`);
    sink.add(offset, blockLength);
    total += blockLength;
  }
  if (total !== size) throw new MpiError(ErrorClass.ERR_TYPE, `an RMA datatype program's blocks hold ${total} bytes, not its size ${size}`);
  return compileProgram(sink, size, extent, lb, minOffset, maxOffset);
}

/**
 * The bytes `count` elements of `p` placed at `offset` touch: `[first, end)` (empty when none).
 * The same arithmetic as a buffer's element region, for a window.
 */
export function touchedRange(p: GatherProgram, count: number, offset: number): { first: number; end: number } {
  if (count === 0 || p.size === 0) return { first: offset, end: offset };
  const spread = (count - 1) * p.extent;
  return { first: offset + p.minOffset + Math.min(0, spread), end: offset + p.maxOffset + Math.max(0, spread) };
}
