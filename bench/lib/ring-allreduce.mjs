// The ring + allreduce program of bench/sim-scale.mjs: a token passed around all ranks `laps` times
// (each hop a blocking send and receive: the laps are sequential, so their wall time shows what
// one hop costs the simulator at this job size), then `allreduces` allreduces of `doubles` doubles.
// Rank 0 prints a line of virtual times and one of the wall time per lap; with DAPL_SIM_MEMORY=1 it also prints the process's
// memory after its last allreduce (in-process ranks share the process).
//
//   npx dapl run -n 1024 --provider ib bench/lib/ring-allreduce.mjs [laps 3] [allreduces 3] [doubles 1024]
import { performance } from 'node:perf_hooks';
import { Mpi, Op } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const [laps, allreduces, doubles] = [3, 3, 1024].map((fallback, i) => Number(process.argv[2 + i] ?? fallback));
const { rank, size } = world;
const next = (rank + 1) % size;
const prev = (rank + size - 1) % size;
const token = new Int32Array(1);
const lapStart = mpi.wtime();
// Wall and CPU time of the laps between the first (which also makes the connections) and the last
// (during which the ranks it has passed go on to the allreduce): under the simulator every rank runs
// in this process, so rank 0 sees the whole chain of hops between its readings. CPU time too: on a
// shared host the wall time also counts other processes' turns.
const measured = laps - 2;
let wallFrom = 0;
let cpuFrom = { user: 0, system: 0 };
let lapWallMs = Number.NaN;
let lapCpuMs = Number.NaN;
for (let lap = 0; lap < laps; lap++) {
  if (rank === 0 && measured > 0 && lap === 1) {
    wallFrom = performance.now();
    cpuFrom = process.cpuUsage();
  }
  if (rank === 0 && measured > 0 && lap === laps - 1) {
    lapWallMs = (performance.now() - wallFrom) / measured;
    const cpu = process.cpuUsage(cpuFrom);
    lapCpuMs = (cpu.user + cpu.system) / 1000 / measured;
  }
  if (rank === 0) {
    token[0] = lap;
    await world.send(token, next, 1);
    await world.recv(token, prev, 1);
    if (token[0] !== lap + size - 1) await mpi.abort(1, `lap ${lap}: the token came back as ${token[0]}, expected ${lap + size - 1}`);
  } else {
    await world.recv(token, prev, 1);
    token[0]++;
    await world.send(token, next, 1);
  }
}
const ringNs = (mpi.wtime() - lapStart) * 1e9;
const mine = new Float64Array(doubles).fill(rank + 1);
const sum = new Float64Array(doubles);
const reduceStart = mpi.wtime();
for (let i = 0; i < allreduces; i++) await world.allreduce(mine, sum, Op.SUM);
const allreduceNs = (mpi.wtime() - reduceStart) * 1e9;
const expected = (size * (size + 1)) / 2;
if (sum[0] !== expected || sum[doubles - 1] !== expected) await mpi.abort(1, `allreduce gave ${sum[0]}, expected ${expected}`);
if (rank === 0 && process.env.DAPL_SIM_MEMORY === '1') {
  const m = process.memoryUsage();
  const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
  process.stdout.write(`memory before finalize: rss ${mb(m.rss)} MB, heap used ${mb(m.heapUsed)} MB, external ${mb(m.external)} MB (array buffers ${mb(m.arrayBuffers)} MB)\n`);
}
if (rank === 0) {
  process.stdout.write(`ring-allreduce: ${size} ranks, ${laps} laps ${ringNs.toFixed(1)} ns, ${allreduces} allreduces of ${doubles} doubles ${allreduceNs.toFixed(1)} ns (virtual)\n`);
  process.stdout.write(`ring-allreduce: wall time per lap between the first and the last ${lapWallMs.toFixed(2)} ms (CPU ${lapCpuMs.toFixed(2)} ms)\n`);
}
await mpi.finalize();
