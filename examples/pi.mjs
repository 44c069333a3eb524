// π by numerical integration of 4 / (1 + x²) over [0, 1] with the midpoint rule: each rank sums
// every size-th interval, and a reduce adds the pieces at rank 0 (the classic first MPI program).
//
//   node examples/pi.mjs [intervals]                      a job of size 1
//   npx dapl run -n 4 examples/pi.mjs 10000000            four processes over tcp
//   npx dapl run -n 8 --provider lapi examples/pi.mjs     the simulated IBM SP
import { Mpi, Op } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const intervals = Number(process.argv[2] ?? 1_000_000);
if (!Number.isInteger(intervals) || intervals < 1) {
  if (world.rank === 0) process.stderr.write(`usage: pi.mjs [intervals ≥ 1], got ${process.argv[2]}\n`);
  await mpi.abort(2, 'bad arguments');
}
const start = mpi.wtime();
const n = new Int32Array([intervals]);
await world.bcast(n, 0);
const h = 1 / n[0];
let sum = 0;
for (let i = world.rank; i < n[0]; i += world.size) {
  const x = h * (i + 0.5);
  sum += 4 / (1 + x * x);
}
const pi = new Float64Array(1);
await world.reduce(new Float64Array([h * sum]), pi, Op.SUM, 0);
if (world.rank === 0) {
  const error = Math.abs(pi[0] - Math.PI);
  process.stdout.write(`pi is approximately ${pi[0].toFixed(16)}, error ${error.toExponential(3)} (${n[0]} intervals, ${world.size} ranks on ${mpi.provider})\n`);
  // wtime is the rank's clock: wall time on tcp, virtual time on a simulated machine.
  process.stdout.write(`elapsed (wtime) = ${(mpi.wtime() - start).toFixed(6)} s\n`);
  if (error > 10 / n[0]) await mpi.abort(1, 'pi: the error is larger than the midpoint rule allows');
}
await mpi.finalize();
