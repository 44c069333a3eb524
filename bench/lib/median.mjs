/** The median of `values` (the upper middle for an even count), as the MPI benchmarks report it. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
