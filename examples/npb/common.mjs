// What the NPB kernels share: the NAS pseudo-random generator (a linear congruential generator
// mod 2^46, x ← a·x, computed exactly in doubles by splitting into 23-bit halves, as NPB's randlc
// and vranlc do) and the result block every NPB benchmark prints.

const R23 = 2 ** -23;
const R46 = R23 * R23;
const T23 = 2 ** 23;
const T46 = T23 * T23;

/** One step: returns the new seed x' = a·x mod 2^46 (the uniform number is R46 · x'). */
export function nextSeed(x, a) {
  let t1 = R23 * a;
  const a1 = Math.trunc(t1);
  const a2 = a - T23 * a1;
  t1 = R23 * x;
  const x1 = Math.trunc(t1);
  const x2 = x - T23 * x1;
  t1 = a1 * x2 + a2 * x1;
  const t2 = Math.trunc(R23 * t1);
  const z = t1 - T23 * t2;
  const t3 = T23 * z + a2 * x2;
  const t4 = Math.trunc(R46 * t3);
  return t3 - T46 * t4;
}

/** NPB's randlc: advances `state.x` and returns the uniform number in (0, 1). */
export function randlc(state, a) {
  state.x = nextSeed(state.x, a);
  return R46 * state.x;
}

/** NPB's vranlc: `n` uniform numbers into `out`, from seed `x`; returns the new seed. */
export function vranlc(n, x, a, out) {
  const a1 = Math.trunc(R23 * a);
  const a2 = a - T23 * a1;
  for (let i = 0; i < n; i++) {
    const x1 = Math.trunc(R23 * x);
    const x2 = x - T23 * x1;
    const t1 = a1 * x2 + a2 * x1;
    const t2 = Math.trunc(R23 * t1);
    const z = t1 - T23 * t2;
    const t3 = T23 * z + a2 * x2;
    const t4 = Math.trunc(R46 * t3);
    x = t3 - T46 * t4;
    out[i] = R46 * x;
  }
  return x;
}

/** The result block of NPB's print_results. */
export function printResults({ name, cls, size, iterations, seconds, processes, mops, operation, verified, provider }) {
  const line = (label, value) => ` ${label.padEnd(15)} = ${String(value).padStart(24)}\n`;
  process.stdout.write(
    `\n\n ${name} Benchmark Completed.\n` +
      line('Class', cls) +
      line('Size', size) +
      line('Iterations', iterations) +
      line('Time in seconds', seconds.toFixed(2)) +
      line('Total processes', processes) +
      line('Mop/s total', mops.toFixed(2)) +
      line('Mop/s/process', (mops / processes).toFixed(2)) +
      line('Operation type', operation) +
      line('Verification', verified ? 'SUCCESSFUL' : 'UNSUCCESSFUL') +
      line('Provider', provider) +
      '\n',
  );
}
