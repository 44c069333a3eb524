// The timing loop every bandwidth body shares, MPI's and DAT's alike (bench/osu.mjs,
// bench/stream-window.mjs, bench/lib/dat-pair.mjs).

/**
 * Seconds the last `iters` of `skip + iters` runs of `step` took (OSU's skip iterations); `step`
 * is told whether its run is timed.
 */
export async function skipping(clock, skip, iters, step) {
  let start = clock();
  for (let i = 0; i < skip + iters; i++) {
    if (i === skip) start = clock();
    await step(i >= skip);
  }
  return clock() - start;
}
