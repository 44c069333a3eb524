import { ANY_SOURCE, ANY_TAG, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue, type StatusLike } from './errors.js';

/** The datatype facts `getCount` needs (any `Datatype`). */
interface SizedType {
  readonly size: number;
  requireUsable(argument: string): void;
}

/** What a completed receive (or probe) learned: MPI_Status. `count` is in bytes. */
export class Status implements StatusLike {
  constructor(
    readonly source: number,
    readonly tag: number,
    /** Bytes received (for a probe: bytes the message holds). */
    readonly count: number,
    readonly cancelled = false,
    /** Bytes of one element of the datatype the receive used (what `getCount()` counts in); undefined for a probe. */
    readonly elementSize: number | undefined = undefined,
  ) {}

  /**
   * Elements of `datatype` received (MPI_Get_count); `UNDEFINED` when not a whole number. Without
   * `datatype`, elements of the datatype the receive used (a probe's status has none: ERR_TYPE,
   * unless it counts 0 bytes).
   */
  getCount(datatype?: SizedType): number {
    if (datatype === undefined) {
      if (this.elementSize === undefined) {
        if (this.count === 0) return 0;
        throw new MpiError(ErrorClass.ERR_TYPE, 'datatype is needed: this status comes from a probe, not a receive with a datatype of its own', { argument: 'datatype' });
      }
      return countIn(this.count, this.elementSize);
    }
    if (typeof datatype !== 'object' || datatype === null || typeof datatype.requireUsable !== 'function') {
      throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
    }
    datatype.requireUsable('datatype');
    return countIn(this.count, datatype.size);
  }

  /**
   * MPI's empty status (MPI-3.1 §3.7.3): source ANY_SOURCE, tag ANY_TAG, count 0 — what a null or
   * inactive request, and a completed send, report. (A receive from PROC_NULL reports source
   * PROC_NULL instead, as MPI says for it.)
   */
  static readonly EMPTY = new Status(ANY_SOURCE, ANY_TAG, 0);
}

function countIn(bytes: number, elementSize: number): number {
  if (elementSize === 0) return bytes === 0 ? 0 : UNDEFINED;
  return bytes % elementSize === 0 ? bytes / elementSize : UNDEFINED;
}
