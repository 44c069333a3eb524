import { expect } from 'vitest';
import { DatError } from '../../src/dat/errors.js';

/** The DatError `fn` throws (the test fails if it throws something else or nothing). */
export function thrown(fn: () => unknown): DatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DatError);
    return e as DatError;
  }
  throw new Error('expected a DatError');
}

/** The DatError `promise` rejects with (the test fails if it resolves or rejects with something else). */
export async function rejection(promise: Promise<unknown>): Promise<DatError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatError);
  return error as DatError;
}
