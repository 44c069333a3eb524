import { ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';

/** A destination rank: 0 ≤ rank < size, or PROC_NULL. */
export function requireDest(rank: unknown, size: number, argument: string): number {
  if (rank === PROC_NULL) return PROC_NULL;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= size) {
    throw new MpiError(ErrorClass.ERR_RANK, `${argument} must be an integer in [0, ${size - 1}] or PROC_NULL, got ${describeValue(rank)}`, { argument });
  }
  return rank;
}

/** A source rank: as a destination, or ANY_SOURCE. */
export function requireSource(rank: unknown, size: number, argument: string): number {
  if (rank === ANY_SOURCE) return ANY_SOURCE;
  if (rank === PROC_NULL) return PROC_NULL;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= size) {
    throw new MpiError(ErrorClass.ERR_RANK, `${argument} must be an integer in [0, ${size - 1}], ANY_SOURCE or PROC_NULL, got ${describeValue(rank)}`, { argument });
  }
  return rank;
}

/** A send tag: 0 ≤ tag ≤ TAG_UB. */
export function requireTag(tag: unknown, argument: string): number {
  if (typeof tag !== 'number' || !Number.isInteger(tag) || tag < 0 || tag > TAG_UB) {
    throw new MpiError(ErrorClass.ERR_TAG, `${argument} must be an integer in [0, ${TAG_UB}] (TAG_UB), got ${describeValue(tag)}`, { argument });
  }
  return tag;
}

/** A receive tag: a send tag or ANY_TAG. */
export function requireRecvTag(tag: unknown, argument: string): number {
  return tag === ANY_TAG ? ANY_TAG : requireTag(tag, argument);
}

/** A non-negative integer count. */
export function requireCount(count: unknown, argument: string): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new MpiError(ErrorClass.ERR_COUNT, `${argument} must be a non-negative integer, got ${describeValue(count)}`, { argument });
  }
  return count;
}

/** What absent options read as: one shared frozen object, so a call without options allocates nothing. */
const NO_OPTIONS: Readonly<Record<string, never>> = Object.freeze({});

/** A plain object of options with only `allowed` keys (see `checkOptionKeys`), or undefined. */
export function requireOptions<T extends object>(options: unknown, argument: string, allowed: readonly string[], call: string): Partial<T> {
  if (options === undefined) return NO_OPTIONS as Partial<T>;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an object of options, got ${describeValue(options)}`, { argument });
  }
  checkOptionKeys(options, allowed, call, argument);
  return options as Partial<T>;
}

/** The keys of the options most calls take: a buffer's datatype and count. */
export const BUFFER_OPTION_KEYS: readonly string[] = ['datatype', 'count'];

/** The keys of a collective's options: one datatype and count for both sides, or each side's own. */
export const COLLECTIVE_OPTION_KEYS: readonly string[] = ['datatype', 'count', 'send', 'recv'];

/**
 * A key `call` does not take is MPI_ERR_ARG naming it and the keys it takes: `{ cnt: 2 }` must not
 * send the whole array as if no option were given. Keys whose value is undefined are ignored (a
 * spread of optional settings). For every call that takes an options object.
 */
export function checkOptionKeys(options: object, allowed: readonly string[], call: string, argument = 'options'): void {
  for (const key in options) {
    if (allowed.includes(key) || (options as Record<string, unknown>)[key] === undefined) continue;
    const takes = allowed.length === 0 ? 'it takes none' : `it takes ${allowed.join(', ')}`;
    throw new MpiError(ErrorClass.ERR_ARG, `${call}: unknown option ${argument}.${key}; ${takes}`, { argument: `${argument}.${key}` });
  }
}
