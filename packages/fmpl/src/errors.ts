/** FMPL's return codes (Tatebe et al. §2: every call returns `ier`), as the codes of `FmplError`. */
export enum FmplCode {
  /** An argument outside what the call allows. */
  ERR_ARG = 'FMPL_ERR_ARG',
  /** A matching-area index outside [0, count) (or FMPL_ANY_TAG where it is not allowed). */
  ERR_MAI = 'FMPL_ERR_MAI',
  /** The matching area is in use by another send or receive of the same pair. */
  ERR_MAI_IN_USE = 'FMPL_ERR_MAI_IN_USE',
  /** A rank outside the communicator. */
  ERR_RANK = 'FMPL_ERR_RANK',
  /** The receive buffer is smaller than the message (neither side's memory is overrun). */
  ERR_TRUNCATE = 'FMPL_ERR_TRUNCATE',
  ERR_COMM = 'FMPL_ERR_COMM',
  ERR_NOT_INITIALIZED = 'FMPL_ERR_NOT_INITIALIZED',
  ERR_FINALIZED = 'FMPL_ERR_FINALIZED',
  /** No send buffer room for a send that timed out (`sendbufSet`). */
  ERR_SENDBUF = 'FMPL_ERR_SENDBUF',
  /** The transport failed (a lost peer). */
  ERR_TRANSPORT = 'FMPL_ERR_TRANSPORT',
}

/** Every FMPL failure: a code, the argument at fault, what was allowed. */
export class FmplError extends Error {
  override readonly name = 'FmplError';
  readonly code: FmplCode;
  readonly argument: string | undefined;
  /** The message without its leading code, to quote inside another error's message. */
  readonly detail: string;

  constructor(code: FmplCode, message: string, options: { argument?: string; cause?: unknown } = {}) {
    super(`${code}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.argument = options.argument;
    this.detail = message;
  }
}

/** The wording of a bad argument in messages: core's, shared by every layer. */
export { describeValue as describe } from '@dapl/core';
