import type { DatStatus } from './status.js';

/** What a `DatError` may carry besides its status and message: the argument at fault, a subtype and the cause. */
export interface DatErrorOptions {
  /** The argument (or configuration key) at fault, e.g. `iov[2].length`. */
  readonly argument?: string;
  /** A finer DAT subtype, e.g. `DAT_INVALID_HANDLE_EP`. */
  readonly subtype?: string;
  readonly cause?: unknown;
}

/**
 * The one error class of the DAT layer. Thrown synchronously for bad arguments and
 * wrong states; a transfer's failure is never thrown, it is a completion event.
 */
export class DatError extends Error {
  override readonly name = 'DatError';
  readonly status: DatStatus;
  readonly argument: string | undefined;
  readonly subtype: string | undefined;

  constructor(status: DatStatus, message: string, options: DatErrorOptions = {}) {
    super(`${status}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.argument = options.argument;
    this.subtype = options.subtype;
  }
}

/** True for a `DatError` (also across two copies of core), optionally with the given status. */
export function isDatError(error: unknown, status?: DatStatus): error is DatError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; status?: unknown };
  return e.name === 'DatError' && (status === undefined || e.status === status);
}
