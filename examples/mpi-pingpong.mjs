// MPI ping-pong between rank 0 and every other rank in turn, with one message per size from
// 1 B to 1 MiB (eager and rendezvous), contents checked, and the round-trip time of each size on
// the rank's clock (wall time over tcp, virtual time on a simulated provider).
//
//   node examples/mpi-pingpong.mjs                            a job of size 1 (ping-pong with itself)
//   npx dapl run -n 4 examples/mpi-pingpong.mjs               four processes over tcp
//   npx dapl run -n 4 --provider ib examples/mpi-pingpong.mjs simulated InfiniBand, virtual time
//   mpiexec.mpich -n 4 node examples/mpi-pingpong.mjs         under MPICH's Hydra
import { Mpi } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const { rank, size } = world;
const sizes = [1, 64, 4096, 65_536, 1 << 20];

for (let peer = size === 1 ? 0 : 1; peer < size; peer++) {
  if (rank !== 0 && rank !== peer) continue;
  for (const n of sizes) {
    const out = new Uint8Array(n).map((_, i) => (i + peer) & 0xff);
    const back = new Uint8Array(n);
    if (rank === 0) {
      const start = mpi.wtime();
      // sendrecv: with itself (size 1) a blocking send before the receive could wait forever.
      if (peer === 0) await world.sendrecv(out, 0, n, back, 0, n);
      else {
        await world.send(out, peer, n);
        await world.recv(back, peer, n);
      }
      const us = (mpi.wtime() - start) * 1e6;
      const ok = back.every((b, i) => b === ((i + peer) & 0xff));
      if (!ok) await mpi.abort(1, `mpi-pingpong: ${n} B came back wrong from rank ${peer}`);
      if (n === sizes[sizes.length - 1]) process.stdout.write(`rank 0 <-> rank ${peer}: ${sizes.length} sizes ok, 1 MiB round trip ${us.toFixed(1)} us\n`);
    } else {
      await world.recv(back, 0, n);
      await world.send(back, 0, n);
    }
  }
}
if (rank === 0) process.stdout.write(`mpi-pingpong: ${size} rank${size === 1 ? '' : 's'} on ${mpi.provider}: OK\n`);
await mpi.finalize();
