import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { describeValue } from '../util/describe-value.js';

/** Argument checks shared by every provider, so each bad input gets the same status and wording. */

/** The wording of a bad argument in messages (core's `describeValue`). */
export const describe = describeValue;

/** An INVALID_PARAMETER `DatError` naming `argument`, to throw. */
export function invalidParameter(argument: string, message: string): DatError {
  return new DatError(DatStatus.INVALID_PARAMETER, `${argument}: ${message}`, { argument });
}

/** An optional flag: true only when given as true; anything but a boolean or undefined is INVALID_PARAMETER. */
export function optionalBoolean(value: unknown, argument: string): boolean {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a boolean, got ${describe(value)}`, { argument });
  }
  return value === true;
}

/** A safe integer in `[min, max]`, else INVALID_PARAMETER (or `status`) naming the argument and range. */
export function requireInteger(value: unknown, argument: string, min: number, max: number, status = DatStatus.INVALID_PARAMETER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new DatError(status, `${argument} must be an integer in [${min}, ${max}], got ${describe(value)}`, { argument });
  }
  return value;
}

/**
 * `value` as a Uint8Array of at most `maxLength` bytes.
 * @throws DatError INVALID_PARAMETER when not a Uint8Array, LENGTH_ERROR when longer.
 */
export function requireBytes(value: unknown, argument: string, maxLength: number): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a Uint8Array, got ${describe(value)}`, { argument });
  }
  if (value.length > maxLength) {
    throw new DatError(DatStatus.LENGTH_ERROR, `${argument} is ${value.length} bytes; at most ${maxLength} allowed`, { argument });
  }
  return value;
}

/** @throws DatError INVALID_PARAMETER unless `value` is a function. */
export function requireFunction(value: unknown, argument: string): void {
  if (typeof value !== 'function') throw invalidParameter(argument, `must be a function, got ${describe(value)}`);
}

/** @throws DatError INVALID_PARAMETER unless `value` is a non-null object. */
export function requireObject(value: unknown, argument: string): asserts value is object {
  if (typeof value !== 'object' || value === null) throw invalidParameter(argument, `must be an object, got ${describe(value)}`);
}

/** A handle that must be one of `owner`'s objects and not freed. */
export function requireHandle<T extends { readonly freed: boolean }>(
  value: unknown,
  argument: string,
  isKind: (v: unknown) => v is T,
  kind: string,
  subtype: string,
): T {
  if (!isKind(value)) {
    throw new DatError(DatStatus.INVALID_HANDLE, `${argument} must be a ${kind} of this IA, got ${describe(value)}`, { argument, subtype });
  }
  if (value.freed) {
    throw new DatError(DatStatus.INVALID_HANDLE, `${argument}: this ${kind} has been freed`, { argument, subtype });
  }
  return value;
}

/**
 * DAT_INVALID_PARAMETER naming a key of `options` that `call` does not take, and the keys it takes:
 * a misspelt option (`{ timeoutMS }`) must not pass as if none were given. Undefined values are
 * ignored (a spread of optional settings).
 */
export function requireOptionKeys(options: object, allowed: readonly string[], call: string, argument = 'options'): void {
  for (const key in options) {
    if (allowed.includes(key) || (options as Record<string, unknown>)[key] === undefined) continue;
    throw invalidParameter(`${argument}.${key}`, `is not an option of ${call}; it takes ${allowed.join(', ')}`);
  }
}
