import { ANY_TAG, PROC_NULL, UNDEFINED } from './constants.js';
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
  ) {}

  /** Elements of `datatype` received (MPI_Get_count); `UNDEFINED` when not a whole number. */
  getCount(datatype: SizedType): number {
    if (typeof datatype !== 'object' || datatype === null || typeof datatype.requireUsable !== 'function') {
      throw new MpiError(ErrorClass.ERR_TYPE, `datatype must be a Datatype, got ${describeValue(datatype)}`, { argument: 'datatype' });
    }
    datatype.requireUsable('datatype');
    if (datatype.size === 0) return this.count === 0 ? 0 : UNDEFINED;
    return this.count % datatype.size === 0 ? this.count / datatype.size : UNDEFINED;
  }

  /** The status of an operation with PROC_NULL, and of a completed send. */
  static readonly EMPTY = new Status(PROC_NULL, ANY_TAG, 0);
}
