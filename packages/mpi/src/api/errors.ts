/**
 * MPI error classes (MPI-3.1 §8.4, table 8.2), as strings so that a message and a log line say
 * what went wrong without a table lookup.
 */
export enum ErrorClass {
  SUCCESS = 'MPI_SUCCESS',
  ERR_BUFFER = 'MPI_ERR_BUFFER',
  ERR_COUNT = 'MPI_ERR_COUNT',
  ERR_TYPE = 'MPI_ERR_TYPE',
  ERR_TAG = 'MPI_ERR_TAG',
  ERR_COMM = 'MPI_ERR_COMM',
  ERR_RANK = 'MPI_ERR_RANK',
  ERR_REQUEST = 'MPI_ERR_REQUEST',
  ERR_ROOT = 'MPI_ERR_ROOT',
  ERR_GROUP = 'MPI_ERR_GROUP',
  ERR_OP = 'MPI_ERR_OP',
  ERR_TOPOLOGY = 'MPI_ERR_TOPOLOGY',
  ERR_DIMS = 'MPI_ERR_DIMS',
  ERR_ARG = 'MPI_ERR_ARG',
  ERR_UNKNOWN = 'MPI_ERR_UNKNOWN',
  ERR_TRUNCATE = 'MPI_ERR_TRUNCATE',
  ERR_OTHER = 'MPI_ERR_OTHER',
  ERR_INTERN = 'MPI_ERR_INTERN',
  ERR_IN_STATUS = 'MPI_ERR_IN_STATUS',
  ERR_PENDING = 'MPI_ERR_PENDING',
  ERR_NO_MEM = 'MPI_ERR_NO_MEM',
  ERR_RMA_SYNC = 'MPI_ERR_RMA_SYNC',
  /** An RMA access outside the target's window. */
  ERR_RMA_RANGE = 'MPI_ERR_RMA_RANGE',
  /** A bad window displacement or displacement unit. */
  ERR_DISP = 'MPI_ERR_DISP',
  ERR_WIN = 'MPI_ERR_WIN',
  /** A peer was lost or the transport failed (MPI-4's MPI_ERR_PROC_FAILED in spirit). */
  ERR_PROC_FAILED = 'MPI_ERR_PROC_FAILED',
}

/** Details an `MpiError` carries besides its class and message. */
export interface MpiErrorOptions {
  /** The argument at fault, e.g. `dest` or `datatype`. */
  readonly argument?: string;
  /** The underlying error (a `DatError` from the provider, say). */
  readonly cause?: unknown;
  /** The status of the failed operation where it says more (ERR_TRUNCATE: the message's real size). */
  readonly status?: StatusLike;
  /** ERR_IN_STATUS: every request the call reported on. */
  readonly inStatus?: readonly InStatusEntry[];
}

/**
 * One request a multiple-completion call (waitAll, waitSome, testAll) reported on when one of them
 * failed: its index in the call's list, and its status or its error (MPI's per-status MPI_ERROR).
 */
export interface InStatusEntry {
  readonly index: number;
  readonly status?: StatusLike;
  readonly error?: MpiError;
}

/** What an error carries of a receive's status (see `Status`). */
export interface StatusLike {
  readonly source: number;
  readonly tag: number;
  readonly count: number;
}

/**
 * The one error class of `@dapl/mpi`: an MPI error class, the argument at fault and, in the
 * message, what was allowed. A failed call leaves the library usable.
 */
export class MpiError extends Error {
  override readonly name = 'MpiError';
  readonly errorClass: ErrorClass;
  readonly argument: string | undefined;
  readonly status: StatusLike | undefined;
  /** ERR_IN_STATUS: each request reported on, with its status or error (see `InStatusEntry`). */
  readonly inStatus: readonly InStatusEntry[] | undefined;
  /** The message without its error class, to quote in another error's message. */
  readonly detail: string;

  constructor(errorClass: ErrorClass, message: string, options: MpiErrorOptions = {}) {
    super(`${errorClass}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.errorClass = errorClass;
    this.argument = options.argument;
    this.status = options.status;
    this.inStatus = options.inStatus;
    this.detail = message;
  }
}

/** True for an `MpiError` (also across two copies of the package), optionally of the given class. */
export function isMpiError(error: unknown, errorClass?: ErrorClass): error is MpiError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; errorClass?: unknown };
  return e.name === 'MpiError' && (errorClass === undefined || e.errorClass === errorClass);
}

/** The wording of a bad argument in messages: core's, shared by every layer. */
export { describeValue } from '@dapl/core';
