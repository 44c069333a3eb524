// The shm side of bench/c-mpi.mjs, run by each of its two worker-thread ranks: the exchanges of
// bench/c/pingpong.c with @dapl/mpi (8 B ping-pong; 1 MiB window of 64 from mpi.allocMem buffers
// and from plain arrays) and DAT send/recv ping-pong on MPI's IA; rank 0 prints one JSON line.
import { Mpi, Request } from '@dapl/mpi';
import { DatPair } from './dat-pair.mjs';
import { mpiPingPong } from './mpi-ping-pong.mjs';
import { skipping } from './skipping.mjs';

const WINDOW = 64;
const LATENCY_ITERS = 10_000;
/**
 * Calls of the timed loop (each LATENCY_ITERS round trips) before it is timed. The C side's one
 * reaches its steady state; the JIT needs the loop's function itself optimized, not only the loop
 * of its first call (on-stack replacement): blocks of 10,000 MPI round trips take 25, 5-6, then
 * 2.0-3.0 us a message from the third call on, and the first call after one long warm-up call is
 * slow again (2026-11-29). Likewise for DAT.
 */
const WARM_UP_CALLS = 3;

export async function measureShm(small, large) {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const peer = 1 - rank;
  const clock = () => mpi.wtime();
  const dat = await DatPair.start(mpi, small, WINDOW);

  const pingPong = async (buf, iters) => {
    const start = clock();
    await mpiPingPong(world, buf, iters);
    return ((clock() - start) * 1e6) / (2 * iters);
  };
  const stream = async (buf, iters, skip) => {
    const ack = new Uint8Array(4);
    const seconds = await skipping(clock, skip, iters, async () => {
      const reqs = [];
      for (let w = 0; w < WINDOW; w++) reqs.push(rank === 0 ? world.isend(buf, peer, 2) : world.irecv(buf, peer, 2));
      await Request.waitAll(reqs);
      if (rank === 0) await world.recv(ack, peer, 3);
      else await world.send(ack, peer, 3);
    });
    return (buf.length * WINDOW * iters) / seconds / 1e6;
  };

  const tiny = new Uint8Array(small);
  for (let i = 0; i < WARM_UP_CALLS; i++) await pingPong(tiny, LATENCY_ITERS);
  const mpiLatency = await pingPong(tiny, LATENCY_ITERS);
  for (let i = 0; i < WARM_UP_CALLS; i++) await dat.pingPong(small, LATENCY_ITERS);
  const datStart = clock();
  await dat.pingPong(small, LATENCY_ITERS);
  const datLatency = ((clock() - datStart) * 1e6) / (2 * LATENCY_ITERS);
  const allocated = mpi.allocMem(large);
  const plain = new Uint8Array(large);
  await stream(allocated, 5, 1);
  const bwAlloc = await stream(allocated, 20, 2);
  await stream(plain, 5, 1);
  const bwPlain = await stream(plain, 20, 2);
  await world.sendrecv(new Uint8Array(0), peer, 9, new Uint8Array(0), peer, 9);
  await dat.close();
  if (rank === 0) process.stdout.write(`${JSON.stringify({ mpiLatency, datLatency, bwAlloc, bwPlain })}\n`);
  await mpi.finalize();
}
