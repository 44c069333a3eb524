// One-sided MPI: every rank writes its rank into its right neighbour's window (put, under fence),
// then takes a ticket from a counter in rank 0's window (fetchAndOp, under a shared lock), and rank
// 0 adds up what it received (accumulate into its own element 0). Run it on any provider:
//
//   dapl run -n 4 examples/mpi-rma.mjs
//   dapl run -n 4 --provider ib examples/mpi-rma.mjs
import { Mpi, Op, Win } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const { rank, size } = world;
const win = await Win.allocate(world, 3 * 8, { dispUnit: 8 }); // three int64 slots per rank
const slots = new BigInt64Array(win.buffer.buffer);

await win.fence();
win.put(BigInt64Array.of(BigInt(rank)), (rank + 1) % size, 1); // slot 1 of the right neighbour
win.accumulate(BigInt64Array.of(BigInt(rank)), 0, 0, Op.SUM); // slot 0 of rank 0: the sum of ranks
await win.fence();

await win.lock(0, 'shared');
const ticket = new BigInt64Array(1);
win.fetchAndOp(BigInt64Array.of(1n), ticket, 0, 2, Op.SUM); // slot 2 of rank 0: a ticket counter
await win.unlock(0);

console.log(`rank ${rank}: left neighbour ${slots[1]}, ticket ${ticket[0]}${rank === 0 ? `, sum of ranks ${slots[0]}` : ''}`);
await win.free();
await mpi.finalize();
