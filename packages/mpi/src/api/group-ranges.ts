import { ErrorClass, MpiError, describeValue } from './errors.js';

/** A (first, last, stride) triplet of MPI_Group_range_incl / _excl. */
export type RankRange = readonly [first: number, last: number, stride: number];

/**
 * The ranks `ranges` name in a group of `size`, in order (MPI-3.1 §6.3.2): each triplet gives
 * first, first + stride, … up to and including last (stride may be negative, never 0; a triplet
 * that goes the wrong way names none). Every rank must lie in the group and appear once: an
 * ERR_RANK naming the triplet otherwise, ERR_ARG for a malformed one.
 */
export function expandRanges(ranges: unknown, size: number, argument: string): number[] {
  if (!Array.isArray(ranges)) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of [first, last, stride] triplets, got ${describeValue(ranges)}`, { argument });
  const out: number[] = [];
  const seen = new Set<number>();
  ranges.forEach((range: unknown, i) => {
    const at = `${argument}[${i}]`;
    if (!Array.isArray(range) || range.length !== 3 || !range.every((v) => typeof v === 'number' && Number.isSafeInteger(v))) {
      throw new MpiError(ErrorClass.ERR_ARG, `${at} must be a triplet of integers [first, last, stride], got ${describeValue(range)}`, { argument: at });
    }
    const [first, last, stride] = range as number[];
    if (stride === 0) throw new MpiError(ErrorClass.ERR_ARG, `${at}: stride must not be 0`, { argument: at });
    for (const end of [first, last]) {
      if (end < 0 || end >= size) throw new MpiError(ErrorClass.ERR_RANK, `${at}: ${end} is not a rank of the group (0 to ${size - 1})`, { argument: at });
    }
    for (let r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen.has(r)) throw new MpiError(ErrorClass.ERR_RANK, `${at} names rank ${r} again: the ranges must not overlap`, { argument: at });
      seen.add(r);
      out.push(r);
    }
  });
  return out;
}
