import type { BufferSpan } from '../adi/transfer.js';
import { bufferSpan, type BufferOptions } from '../api/buffer-span.js';
import { requireCount } from '../api/check.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { Datatype, datatypeOf } from '../datatype/index.js';
import type { BlockLayout } from './algorithms/blocks.js';
import type { CollChannel } from './channel.js';
import { IN_PLACE } from './in-place.js';
import { Op } from './op.js';

/**
 * Options of a collective that moves data from send buffers to receive buffers: one
 * `{ datatype, count }` for both sides, or each side its own, as `sendrecv` takes them (MPI's
 * sendcount/sendtype and recvcount/recvtype): a root can gather `count` INT32s from each rank into a
 * vector type. Only the type signatures must agree (the bytes per block), not the types.
 */
export interface CollectiveOptions extends BufferOptions {
  /** The send side: elements of `datatype` per block (gather, scatter, allgather: the block; alltoall: per rank). */
  readonly send?: BufferOptions;
  /** The receive side: elements of `datatype` per rank's block. */
  readonly recv?: BufferOptions;
}

export interface Sides {
  readonly send: BufferOptions;
  readonly recv: BufferOptions;
  /** Whether the options named the sides apart. */
  readonly twoSided: boolean;
}

/** The two sides of `options` (each the same object in the one-sided form). */
export function sides(options: CollectiveOptions): Sides {
  const twoSided = options.send !== undefined || options.recv !== undefined;
  if (!twoSided) return { send: options, recv: options, twoSided };
  if (options.datatype !== undefined || options.count !== undefined) {
    throw new MpiError(ErrorClass.ERR_ARG, 'options take either { datatype, count } for both sides or { send: { count, datatype }, recv: { count, datatype } }, not both', { argument: 'options' });
  }
  return { send: side(options.send, 'options.send'), recv: side(options.recv, 'options.recv'), twoSided };
}

function side(options: unknown, argument: string): BufferOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an object { count, datatype }, got ${describeValue(options)}`, { argument });
  }
  return options as BufferOptions;
}

export function requireRoot(ch: CollChannel, root: unknown): number {
  if (typeof root !== 'number' || !Number.isInteger(root) || root < 0 || root >= ch.size) {
    throw new MpiError(ErrorClass.ERR_ROOT, `root must be a rank of ${ch.name} in [0, ${ch.size - 1}], got ${describeValue(root)}`, { argument: 'root' });
  }
  return root;
}

/** The span of a buffer argument; IN_PLACE where the call does not allow it is ERR_BUFFER. */
export function spanOf(buf: unknown, options: BufferOptions, argument: string): BufferSpan {
  if (buf === IN_PLACE) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is not allowed as ${argument} here`, { argument });
  return bufferSpan(buf, options, argument);
}

/** The datatype given, else the buffer's element type. */
export function datatypeFor(buf: unknown, datatype: Datatype | undefined, argument = 'buf'): Datatype {
  if (datatype !== undefined && !(datatype instanceof Datatype)) {
    throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
  }
  return datatype ?? datatypeOf(buf, argument);
}

/** IN_PLACE where only the root may use it; true when used. */
export function inPlaceAtRoot(buf: unknown, isRoot: boolean, where: string, argument = 'sendbuf'): boolean {
  if (buf !== IN_PLACE) return false;
  if (!isRoot) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is allowed only for ${where}`, { argument });
  return true;
}

export function checkOp(op: unknown, datatype: Datatype): asserts op is Op {
  if (!(op instanceof Op)) throw new MpiError(ErrorClass.ERR_OP, `op must be an Op (Op.SUM … or Op.create), got ${describeValue(op)}`, { argument: 'op' });
  op.check(datatype);
}

/**
 * Elements per block on the receive side: `count` when given, else the send side's bytes in
 * elements of the receive type (the same count when the types are the same), else (IN_PLACE, or
 * a send side of no whole number of receive elements) as many as `capacity` holds per rank.
 */
export function receiveCount(count: number | undefined, sendBytes: number | undefined, recvType: Datatype, capacity: () => number, ranks: number, argument: string): number {
  if (count !== undefined) return requireCount(count, argument);
  if (sendBytes !== undefined && recvType.size > 0 && sendBytes % recvType.size === 0) return sendBytes / recvType.size;
  return Math.floor(capacity() / ranks);
}

export interface VectorLayout {
  counts: number[];
  at: number[];
  /** Elements the blocks span. */
  extent: number;
  /** Where each block's packed bytes are. */
  layout: BlockLayout;
}

/** Per-rank counts and displacements (elements; default packed in rank order): the block layout in bytes and the elements it spans. */
export function vector(ranks: number, counts: readonly number[] | null, displs: readonly number[] | null, countsArgument: string, displsArgument: string, elementBytes: number): VectorLayout {
  const c = countList(ranks, counts, countsArgument);
  const at = displList(displs, c, displsArgument);
  const extent = Math.max(0, ...c.map((n, i) => (n === 0 ? 0 : at[i] + n)));
  // An empty block may name any displacement, even past the others' data: it is placed at 0.
  return { counts: c, at, extent, layout: { offset: (i) => (c[i] === 0 ? 0 : at[i] * elementBytes), length: (i) => c[i] * elementBytes } };
}

export function countList(ranks: number, counts: readonly number[] | null, argument: string): number[] {
  if (!Array.isArray(counts) || counts.length !== ranks) {
    throw new MpiError(ErrorClass.ERR_COUNT, `${argument} must be an array of ${ranks} counts (one per rank), got ${describeValue(counts)}`, { argument });
  }
  return counts.map((c, i) => requireCount(c, `${argument}[${i}]`));
}

function displList(displs: readonly number[] | null, counts: readonly number[], argument: string): number[] {
  if (displs === null || displs === undefined) {
    const at: number[] = [];
    let next = 0;
    for (const c of counts) {
      at.push(next);
      next += c;
    }
    return at;
  }
  if (!Array.isArray(displs) || displs.length !== counts.length) {
    throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ${counts.length} displacements, got ${describeValue(displs)}`, { argument });
  }
  return displs.map((d, i) => requireCount(d, `${argument}[${i}]`));
}

/**
 * The datatype of one side: the one given, else (two sides) that side's buffer's element type,
 * else (one `{ datatype, count }` for both) the element type of `singleFrom`, the buffer the call
 * reads its default from.
 */
export function sideType(s: Sides, which: 'send' | 'recv', buf: unknown, singleFrom: unknown, argument: string): Datatype {
  const given = s[which].datatype;
  if (given !== undefined) return datatypeFor(undefined, given);
  return datatypeFor(s.twoSided ? buf : singleFrom, undefined, argument);
}

/** Inputs and output of a reduction, with the op checked against the datatype. */
export function reduction(sendbuf: unknown, recvbuf: unknown, op: unknown, options: BufferOptions, needOutput: boolean, what: string) {
  const inPlace = sendbuf === IN_PLACE;
  if (inPlace && !needOutput) throw new MpiError(ErrorClass.ERR_BUFFER, `IN_PLACE is allowed only at the root of ${what}`, { argument: 'sendbuf' });
  const datatype = datatypeFor(inPlace ? recvbuf : sendbuf, options.datatype);
  checkOp(op, datatype);
  const input = spanOf(inPlace ? recvbuf : sendbuf, { datatype, count: options.count }, inPlace ? 'recvbuf' : 'sendbuf');
  const count = input.count;
  let output: BufferSpan | undefined;
  if (needOutput) {
    output = inPlace ? input : spanOf(recvbuf, { datatype, count }, 'recvbuf');
    if (output.size < input.size) throw new MpiError(ErrorClass.ERR_BUFFER, `recvbuf holds ${output.size} bytes, the result needs ${input.size}`, { argument: 'recvbuf' });
  }
  return { input, output, datatype, count, op: op as Op };
}
