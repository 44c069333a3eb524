// osu_latency's loop on @dapl/mpi, shared by bench/osu.mjs and bench/lib/shm-figures.mjs.

/** `iters` round trips of `buf` between ranks 0 and 1 of `world` (tag 1): rank 0 sends first. */
export async function mpiPingPong(world, buf, iters) {
  const peer = 1 - world.rank;
  for (let i = 0; i < iters; i++) {
    if (world.rank === 0) {
      await world.send(buf, peer, 1);
      await world.recv(buf, peer, 1);
    } else {
      await world.recv(buf, peer, 1);
      await world.send(buf, peer, 1);
    }
  }
}
