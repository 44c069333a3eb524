/** The median of `values` (the upper middle for an even count), as the MPI benchmarks report it. */
export function median(values) {
  return quantile(values, 0.5);
}

/** The value at fraction `q` (0..1) of the sorted `values` (nearest rank), for quartiles of a spread. */
export function quantile(values, q) {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be within 0..1, got ${q}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
