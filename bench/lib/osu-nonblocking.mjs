// OSU's nonblocking collective tests (osu_iallreduce, osu_ibcast, osu_ialltoall) on @dapl/mpi, in
// OSU's method and format: the pure communication time (start, wait) per size; then the same
// operation started, the program computing for that long, then waiting ("Overall"); the compute
// time; and overlap = max(0, 100 − 100 · (overall − compute) / pure). Every figure is the average
// over iterations, the maximum over ranks, the median over rounds.
//
// The compute is done in `steps` pieces, and the program yields to the event loop after each (as a
// program calling MPI_Test between pieces of work would give MPI control): that is when this
// library progresses a nonblocking collective (its schedule advances from the transport's
// completions, which JavaScript delivers on the event loop). On a simulated provider a piece is
// charged to the rank's clock (`clock.charge`) and the yield waits until virtual time reaches it,
// so overlap is measured in virtual time; on tcp a piece is a busy loop of wall-clock time and the
// yield is one `setImmediate`. With `steps` 1 the program computes without yielding: only what the
// start posted moves during the compute.
import { Op } from '@dapl/mpi';
import { median } from './median.mjs';

const NAMES = { iallreduce: 'Allreduce', ibcast: 'Broadcast', ialltoall: 'All-to-All' };
export const NONBLOCKING_TESTS = Object.keys(NAMES);

/**
 * Run the nonblocking tests in `kinds` on `mpi.world`; rank 0 prints. `sizes` in bytes (alltoall: per
 * rank), `iterations(n)` per round, `rounds` rounds.
 */
export async function nonblockingCollectives(mpi, { kinds, sizes, iterations, rounds, steps, simulated }) {
  const world = mpi.world;
  const clock = mpi.job.runtime.clock;
  const compute = async (seconds) => {
    const piece = seconds / steps;
    for (let k = 0; k < steps; k++) {
      if (simulated) {
        clock.charge(piece * 1e9);
        await clock.delay(0);
      } else {
        const end = performance.now() + piece * 1e3;
        while (performance.now() < end);
        await new Promise(setImmediate);
      }
    }
  };
  const slowest = async (seconds) => {
    const out = new Float64Array(1);
    await world.allreduce(Float64Array.of(seconds), out, Op.MAX);
    return out[0];
  };
  for (const kind of kinds) {
    await world.barrier();
    if (world.rank === 0) {
      process.stdout.write(`# OSU MPI Non-blocking ${NAMES[kind]} Latency Test (dapl.ts @dapl/mpi, provider ${mpi.provider}${simulated ? ', virtual time' : ''}, ${world.size} ranks, compute in ${steps} yielding step${steps === 1 ? '' : 's'})\n`);
      process.stdout.write('# Overall = Coll. Init + Compute + MPI_Wait\n');
      process.stdout.write(`# Size${'Overall(us)'.padStart(18)}${'Compute(us)'.padStart(18)}${'Pure Comm.(us)'.padStart(18)}${'Overlap(%)'.padStart(18)}\n`);
    }
    for (const n of sizes.filter((x) => kind !== 'iallreduce' || x >= 4)) {
      const iters = Math.max(2, Math.floor(iterations(n) / 4));
      const start = operation(world, kind, n);
      await start().wait(); // warm-up: connections, registrations
      const pure = [];
      const overall = [];
      const computed = [];
      for (let r = 0; r < rounds; r++) {
        await world.barrier();
        let t = mpi.wtime();
        for (let i = 0; i < iters; i++) await start().wait();
        const p = await slowest((mpi.wtime() - t) / iters);
        await world.barrier();
        let cpu = 0;
        t = mpi.wtime();
        for (let i = 0; i < iters; i++) {
          const request = start();
          const c = mpi.wtime();
          await compute(p);
          cpu += mpi.wtime() - c;
          await request.wait();
        }
        overall.push(await slowest((mpi.wtime() - t) / iters));
        computed.push(await slowest(cpu / iters));
        pure.push(p);
      }
      const [o, c, p] = [median(overall), median(computed), median(pure)];
      const overlap = Math.max(0, 100 - (100 * (o - c)) / p);
      if (world.rank === 0) process.stdout.write(`${String(n).padEnd(6)}${[o * 1e6, c * 1e6, p * 1e6, overlap].map((x) => x.toFixed(2).padStart(18)).join('')}\n`);
    }
  }
}

/** A function starting one `kind` operation of `n` bytes (per rank for alltoall), on buffers made once. */
function operation(world, kind, n) {
  if (kind === 'ibcast') {
    const bytes = new Uint8Array(n);
    return () => world.ibcast(bytes, 0);
  }
  if (kind === 'iallreduce') {
    const send = new Float32Array(Math.max(1, n / 4));
    const recv = new Float32Array(send.length);
    return () => world.iallreduce(send, recv, Op.SUM);
  }
  const send = new Uint8Array(n * world.size);
  const recv = new Uint8Array(n * world.size);
  return () => world.ialltoall(send, recv);
}
