// NAS Parallel Benchmarks EP (embarrassingly parallel), the MPI version's algorithm: 2^(M+1) NPB
// pseudo-random numbers, taken in pairs, become Gaussian deviates by the Marsaglia polar method;
// each rank does its share of the 2^(M−16) batches (each starting from a seed found by jumping the
// generator), and three allreduces combine the sums and the counts per square annulus. Verified
// against NPB's official sums for classes S and W (relative error ≤ 1e-8).
//
//   node examples/npb/ep.mjs S
//   npx dapl run -n 4 examples/npb/ep.mjs W
import { Mpi, Op } from '@dapl/mpi';
import { printResults, randlc, timeMeasured, vranlc } from './common.mjs';

const CLASSES = {
  S: { m: 24, sx: -3.247834652034740e3, sy: -6.958407078382297e3 },
  W: { m: 25, sx: -2.863319731645753e3, sy: -6.320053679109499e3 },
};
const MK = 16;
const NK = 2 ** MK;
const NQ = 10;
const EPSILON = 1e-8;
const A = 1220703125;
const S = 271828183;

const mpi = await Mpi.init();
const world = mpi.world;
const cls = (process.argv[2] ?? 'S').toUpperCase();
if (!(cls in CLASSES)) {
  if (world.rank === 0) process.stderr.write(`usage: ep.mjs [S|W], got ${process.argv[2]}\n`);
  await world.barrier(); // rank 0's message is out before any rank's abort ends the job
  await mpi.abort(2, 'unknown class');
}
const { m, sx: sxRef, sy: syRef } = CLASSES[cls];
const nn = 2 ** (m - MK);
const { rank, size } = world;
if (rank === 0) process.stdout.write(`\n\n NAS Parallel Benchmarks (dapl.ts @dapl/mpi) - EP Benchmark\n\n Number of random numbers generated: ${2 ** (m + 1)}\n Number of active processes:         ${size}\n`);

await world.barrier();
const start = mpi.wtime();
// AN = A^(2·NK) mod 2^46: the jump from one batch's seed to the next.
const an = { x: A };
for (let i = 0; i < MK + 1; i++) randlc(an, an.x);
// This rank's batches: the first nn mod size ranks take one more.
const large = nn % size;
const np = Math.floor(nn / size) + (rank < large ? 1 : 0);
const kOffset = rank < large ? rank * np - 1 : large * (np + 1) + (rank - large) * np - 1;
const x = new Float64Array(2 * NK);
const q = new Float64Array(NQ);
let sx = 0;
let sy = 0;
for (let k = 1; k <= np; k++) {
  let kk = kOffset + k;
  const t1 = { x: S };
  const t2 = { x: an.x };
  // The starting seed of batch kk: S · AN^kk by binary powering.
  for (let i = 0; i < 100; i++) {
    const ik = Math.floor(kk / 2);
    if (2 * ik !== kk) randlc(t1, t2.x);
    if (ik === 0) break;
    randlc(t2, t2.x);
    kk = ik;
  }
  vranlc(2 * NK, t1.x, A, x);
  for (let i = 0; i < NK; i++) {
    const x1 = 2 * x[2 * i] - 1;
    const x2 = 2 * x[2 * i + 1] - 1;
    const t = x1 * x1 + x2 * x2;
    if (t <= 1) {
      const f = Math.sqrt((-2 * Math.log(t)) / t);
      const g1 = x1 * f;
      const g2 = x2 * f;
      q[Math.trunc(Math.max(Math.abs(g1), Math.abs(g2)))] += 1;
      sx += g1;
      sy += g2;
    }
  }
}
const sums = new Float64Array(2);
await world.allreduce(new Float64Array([sx]), sums.subarray(0, 1), Op.SUM);
await world.allreduce(new Float64Array([sy]), sums.subarray(1, 2), Op.SUM);
const counts = new Float64Array(NQ);
await world.allreduce(q, counts, Op.SUM);
const seconds = mpi.wtime() - start;

if (rank === 0) {
  const gc = counts.reduce((a, b) => a + b, 0);
  const verified = Math.abs((sums[0] - sxRef) / sxRef) <= EPSILON && Math.abs((sums[1] - syRef) / syRef) <= EPSILON;
  process.stdout.write(`\n EP Benchmark Results:\n\n CPU Time = ${seconds.toFixed(4)}\n N = 2^${m}\n No. Gaussian Pairs = ${gc}\n Sums = ${sums[0].toExponential(15)} ${sums[1].toExponential(15)}\n Counts:\n`);
  for (let i = 0; i < NQ; i++) process.stdout.write(` ${String(i).padStart(3)} ${String(counts[i]).padStart(15)}\n`);
  printResults({ name: 'EP', cls, size: 2 ** (m + 1), iterations: 0, seconds, processes: size, mops: 2 ** (m + 1) / seconds / 1e6, operation: 'Random numbers generated', verified, provider: mpi.provider, clock: timeMeasured(mpi) });
  if (!verified) await mpi.abort(1, `EP: sums ${sums[0]}, ${sums[1]}; expected ${sxRef}, ${syRef}`);
}
await mpi.finalize();
