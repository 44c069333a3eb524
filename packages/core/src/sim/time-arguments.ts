import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { describe } from '../provider-kit/validate.js';

/** A finite number ≥ `min` (virtual times and durations in ns, speeds), else INVALID_PARAMETER naming the argument. */
export function requireFiniteAtLeast(value: unknown, argument: string, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a finite number >= ${min}, got ${describe(value)}`, { argument });
  }
  return value;
}

/** A finite number > 0 (a speed, a size), else INVALID_PARAMETER naming the argument. */
export function requirePositive(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a finite number > 0, got ${describe(value)}`, { argument });
  }
  return value;
}
