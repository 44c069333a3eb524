// What the NPB kernels share: the NAS pseudo-random generator (a linear congruential generator
// mod 2^46, x ← a·x, computed exactly in doubles by splitting into 23-bit halves, as NPB's randlc
// and vranlc do), the class and process-count checks of their command lines, and the result block
// every NPB benchmark prints.

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

/** a^n mod 2^46 by binary powering (NPB's power and ipow46): the generator's jump over n numbers. */
export function power46(a, n) {
  let result = 1;
  let q = a;
  for (let m = n; m > 0; m = Math.floor(m / 2)) {
    if (m % 2 === 1) result = nextSeed(result, q);
    q = nextSeed(q, q);
  }
  return result;
}

/**
 * The class named by the first argument (S by default) among `classes`, and a power-of-two number of
 * ranks no greater than `maxRanks(class)`, as NPB's CG, MG and FT require; otherwise a usage message
 * on rank 0 and exit code 2.
 */
export async function kernelArguments(mpi, name, classes, maxRanks) {
  const { rank, size } = mpi.world;
  const cls = (process.argv[2] ?? 'S').toUpperCase();
  const usage = async (why) => {
    if (rank === 0) process.stderr.write(`usage: ${name}.mjs [${Object.keys(classes).join('|')}] on a power-of-two number of ranks: ${why}\n`);
    await mpi.world.barrier(); // rank 0's message is out before any rank's abort ends the job
    return mpi.abort(2, why);
  };
  if (!(cls in classes)) await usage(`unknown class ${process.argv[2]}`);
  const most = maxRanks(classes[cls]);
  if ((size & (size - 1)) !== 0 || size > most) await usage(`class ${cls} runs on 1, 2, 4, … ${most} ranks, got ${size}`);
  return { cls, C: classes[cls] };
}

/**
 * Exchanges a word with every rank, so that every connection a kernel will use is up before its first
 * long computation: ranks in one process (a simulated provider) compute in turn, and a connection
 * request that waits on a computing peer counts wall time against its timeout (10 s by default).
 */
export async function connectAll(world) {
  await world.alltoall(new Int32Array(world.size), new Int32Array(world.size));
}

/** What the reported time counts: the wall clock, or virtual time in which only communication costs (a simulated provider). */
export function timeMeasured(mpi) {
  return mpi.job.ia.provider.capabilities.inProcess ? 'virtual, comm. only' : 'wall clock';
}

/** The result block of NPB's print_results. */
export function printResults({ name, cls, size, iterations, seconds, processes, mops, operation, verified, provider, clock }) {
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
      line('Time measured', clock) +
      '\n',
  );
}
