// A job that never ends, to show what `dapl run` reports when it stops one (--timeout, Ctrl-C,
// SIGTERM): rank 0 waits for a message that rank 1 never sends (it sends tag 8, not 9); the other
// ranks wait in a barrier that rank 0 never reaches.
//   dapl run -n 3 --timeout 5 examples/stuck.mjs
import { Mpi } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
if (world.rank === 1) await world.send(Int32Array.of(42), 0, 8);
console.log(`rank ${world.rank}: ${world.rank === 0 ? 'receiving tag 9 from rank 1' : 'entering the barrier'}`);
if (world.rank === 0) await world.recv(new Int32Array(1), 1, 9);
await world.barrier();
await mpi.finalize();
