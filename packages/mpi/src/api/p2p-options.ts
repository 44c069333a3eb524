import { SendMode } from '../adi/requests.js';
import type { BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, requireOptions } from './check.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';

/** Options of `send` and its variants: which part of the buffer, its datatype, and the send mode. */
export interface SendOptions extends BufferOptions {
  /** Default 'standard'. */
  readonly mode?: 'standard' | 'synchronous' | 'ready' | 'buffered';
}

/** Options of `recv` and `irecv`: which part of the buffer, and its datatype. */
export type RecvOptions = BufferOptions;

/** Options of `sendrecv`: the buffer options of its send half and of its receive half. */
export interface SendrecvOptions {
  readonly send?: BufferOptions;
  readonly recv?: BufferOptions;
}

const SEND_OPTION_KEYS: readonly string[] = [...BUFFER_OPTION_KEYS, 'mode'];
const SENDRECV_OPTION_KEYS: readonly string[] = ['send', 'recv'];

const MODES: Readonly<Record<string, SendMode>> = {
  standard: SendMode.STANDARD,
  synchronous: SendMode.SYNCHRONOUS,
  ready: SendMode.READY,
  buffered: SendMode.BUFFERED,
};

/** A send's options, checked, with its mode resolved. */
export interface CheckedSendOptions {
  readonly options: Partial<SendOptions>;
  readonly mode: SendMode;
}

/** What a send without options resolves to (every plain MPI_Send): no object made per call. */
const STANDARD_SEND: CheckedSendOptions = Object.freeze({ options: requireOptions<SendOptions>(undefined, 'options', SEND_OPTION_KEYS, 'send'), mode: SendMode.STANDARD });

/** A send's options checked (`call` names the call in errors), with its mode resolved. */
export function requireSendOptions(options: unknown, call: string): CheckedSendOptions {
  if (options === undefined) return STANDARD_SEND;
  const o = requireOptions<SendOptions>(options, 'options', SEND_OPTION_KEYS, call);
  const mode = MODES[o.mode ?? 'standard'];
  if (mode === undefined) {
    throw new MpiError(ErrorClass.ERR_ARG, `options.mode must be 'standard', 'synchronous', 'ready' or 'buffered', got ${describeValue(o.mode)}`, { argument: 'options.mode' });
  }
  return { options: o, mode };
}

export function requireSendrecvOptions(options: unknown): Partial<SendrecvOptions> {
  return requireOptions<SendrecvOptions>(options, 'options', SENDRECV_OPTION_KEYS, 'sendrecv');
}

/** MPI's C int, which colours and keys travel as: anything wider would wrap on the way. */
const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** `split`'s colour and key checked: int32, the colour non-negative or `undefinedColor`. */
export function requireSplitArguments(color: unknown, key: unknown, undefinedColor: number): void {
  if (color !== undefinedColor && (typeof color !== 'number' || !Number.isInteger(color) || color < 0 || color > INT32_MAX)) {
    throw new MpiError(ErrorClass.ERR_ARG, `color must be an integer in [0, ${INT32_MAX}] or UNDEFINED, got ${describeValue(color)}`, { argument: 'color' });
  }
  if (typeof key !== 'number' || !Number.isInteger(key) || key < INT32_MIN || key > INT32_MAX) {
    throw new MpiError(ErrorClass.ERR_ARG, `key must be an integer in [${INT32_MIN}, ${INT32_MAX}], got ${describeValue(key)}`, { argument: 'key' });
  }
}
