import type { BufferSpan } from '../adi/transfer.js';
import { bufferSpan } from '../api/buffer-span.js';
import { requireCount, requireOptions } from '../api/check.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { Op } from '../coll/op.js';
import { Datatype, datatypeOf } from '../datatype/index.js';
import type { WindowSpan } from './apply.js';
import type { RemoteWindow } from './channel.js';
import { ELEMENT_TYPES, touchedRange } from './wire.js';

/** The options of put, get and the accumulates: the origin's and the target's count and type. */
export interface RmaOptions {
  /** Elements of `datatype` at the origin; default: as many as the array holds. */
  readonly count?: number;
  /** Default: the origin array's element type. */
  readonly datatype?: Datatype;
  /** Default: the origin's count (when the types are the same) or the count giving the same bytes. */
  readonly targetCount?: number;
  /** Default: the origin's datatype. */
  readonly targetDatatype?: Datatype;
}

/** A rank of the window's group. */
export function requireTargetRank(rank: unknown, size: number, argument = 'targetRank'): number {
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= size) {
    throw new MpiError(ErrorClass.ERR_RANK, `${argument} must be an integer in [0, ${size - 1}], got ${describeValue(rank)}`, { argument });
  }
  return rank;
}

/** A displacement: a non-negative integer (in the target's displacement units). */
export function requireDisp(disp: unknown, argument = 'targetDisp'): number {
  if (typeof disp !== 'number' || !Number.isSafeInteger(disp) || disp < 0) {
    throw new MpiError(ErrorClass.ERR_DISP, `${argument} must be a non-negative integer (in the target's displacement units), got ${describeValue(disp)}`, { argument });
  }
  return disp;
}

/** A displacement unit: a positive integer number of bytes. */
export function requireDispUnit(unit: unknown, argument: string): number {
  if (typeof unit !== 'number' || !Number.isInteger(unit) || unit < 1 || unit > 2 ** 31 - 1) {
    throw new MpiError(ErrorClass.ERR_DISP, `${argument} must be a positive integer number of bytes, got ${describeValue(unit)}`, { argument });
  }
  return unit;
}

function requireType(type: unknown, argument: string): Datatype {
  if (!(type instanceof Datatype)) throw new MpiError(ErrorClass.ERR_TYPE, `${argument} must be a Datatype, got ${describeValue(type)}`, { argument });
  type.requireCommitted(argument);
  return type;
}

/** An origin buffer and where its data goes at the target: both sides checked, the range too. */
export interface CheckedTransfer {
  readonly origin: BufferSpan;
  readonly originType: Datatype;
  readonly span: WindowSpan;
  readonly targetType: Datatype;
}

/**
 * Resolve and check a transfer's origin and target sides: the same number of bytes on both sides
 * (ERR_TYPE), the target's bytes inside its window (ERR_RMA_RANGE, also enforced by the target).
 */
export function checkTransfer(origin: unknown, options: unknown, disp: number, remote: RemoteWindow, argument = 'origin'): CheckedTransfer {
  const o = requireOptions<RmaOptions>(options, 'options', ['count', 'datatype', 'targetCount', 'targetDatatype'], 'checkTransfer');
  const span = bufferSpan(origin, { count: o.count, datatype: o.datatype }, argument);
  const originType = o.datatype === undefined ? datatypeOf(origin, argument) : requireType(o.datatype, 'datatype');
  const targetType = o.targetDatatype === undefined ? originType : requireType(o.targetDatatype, 'targetDatatype');
  let targetCount: number;
  if (o.targetCount !== undefined) targetCount = requireCount(o.targetCount, 'targetCount');
  else if (targetType === originType) targetCount = span.count;
  else if (targetType.size > 0 && span.size % targetType.size === 0) targetCount = span.size / targetType.size;
  else throw new MpiError(ErrorClass.ERR_TYPE, `targetDatatype ${targetType.name} (${targetType.size} B) does not divide the origin's ${span.size} bytes: give targetCount`, { argument: 'targetDatatype' });
  const targetBytes = targetType.size * targetCount;
  if (targetBytes !== span.size) {
    throw new MpiError(ErrorClass.ERR_TYPE, `the origin moves ${span.size} bytes but ${targetCount} × ${targetType.name} at the target hold ${targetBytes}: the two signatures must match`, { argument: 'targetDatatype' });
  }
  const program = targetType.program;
  const offset = disp * remote.dispUnit;
  const { first, end } = touchedRange(program, targetCount, offset);
  if (targetBytes > 0 && (first < 0 || end > remote.size)) {
    throw new MpiError(ErrorClass.ERR_RMA_RANGE, `targetDisp ${disp} (× dispUnit ${remote.dispUnit}) with ${targetCount} × ${targetType.name} touches bytes [${first}, ${end}) of a ${remote.size}-byte window`, { argument: 'targetDisp' });
  }
  return { origin: span, originType, span: { offset, program, count: targetCount }, targetType };
}

const BY_KIND = new Map(ELEMENT_TYPES.filter((t) => !t.isPair).map((t) => [t.uniformBasic, t]));

/** The predefined type an accumulate combines (its atom): the type itself, or what a derived one is made of. */
export function elementOf(type: Datatype, argument: string): Datatype {
  if (type.predefined) return type;
  const element = type.uniformBasic === undefined ? undefined : BY_KIND.get(type.uniformBasic);
  if (element === undefined) throw new MpiError(ErrorClass.ERR_TYPE, `${argument} ${type.name} mixes basic types: an accumulate needs a type built from one predefined type`, { argument });
  return element;
}

/** An accumulate's op: predefined (ERR_OP for a user op, as MPI requires), defined on `element`. */
export function requireRmaOp(op: unknown, element: Datatype, allowNoOp: boolean, argument = 'op'): Op {
  if (!(op instanceof Op)) throw new MpiError(ErrorClass.ERR_OP, `${argument} must be a predefined Op, got ${describeValue(op)}`, { argument });
  if (!op.predefined) throw new MpiError(ErrorClass.ERR_OP, `${argument} ${op.name} is a user-defined op: one-sided accumulates take predefined ops only (MPI-3.1 §11.3.4)`, { argument });
  if (op === Op.NO_OP && !allowNoOp) throw new MpiError(ErrorClass.ERR_OP, `${argument} NO_OP is for getAccumulate and fetchAndOp only`, { argument });
  if (op !== Op.REPLACE && op !== Op.NO_OP) op.check(element, argument, true);
  return op;
}

/** The origin's and target's atoms must agree (the op combines like with like). */
export function requireSameElement(origin: Datatype, target: Datatype): void {
  if (origin !== target) throw new MpiError(ErrorClass.ERR_TYPE, `the origin's elements are ${origin.name} but the target's are ${target.name}: an accumulate combines like with like`, { argument: 'targetDatatype' });
}

/** compareAndSwap's element: an integer or byte type (MPI-3.1 §11.3.4). */
export function requireSwappable(type: Datatype, argument: string): void {
  const kind = type.uniformBasic;
  if (!type.predefined || type.isPair || kind === undefined || kind === 'float32' || kind === 'float64') {
    throw new MpiError(ErrorClass.ERR_TYPE, `${argument} must be an integer or byte array for compareAndSwap, got elements of ${type.name}`, { argument });
  }
}
