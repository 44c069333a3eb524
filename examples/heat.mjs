// 2-D heat diffusion (Jacobi iteration) on an N×N plate whose top edge is held at 100°, decomposed
// over a py × px Cartesian communicator (Mpi.dimsCreate, comm.cartCreate, open edges): each rank
// owns a block with one ghost cell on every side. Its four halos are subarray datatypes of the block
// (createSubarray: a row or a column of the interior, or of the ghost frame), and the exchange is
// eight persistent requests (recvInit / sendInit to the neighbours cart.shift names, PROC_NULL at
// the plate's edges) started together every step — one set for each of the two grids the iteration
// alternates between. At the end rank 0 gathers the plate and prints a checksum that is the same for
// any number of ranks (the same arithmetic on every cell), which the tests compare with a one-rank run.
//
//   node examples/heat.mjs [N] [steps]
//   npx dapl run -n 6 examples/heat.mjs 96 300
import { Datatype, Mpi, Request } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const N = Number(process.argv[2] ?? 64);
const steps = Number(process.argv[3] ?? 200);
if (!Number.isInteger(N) || N < 4 || !Number.isInteger(steps) || steps < 0) {
  if (world.rank === 0) process.stderr.write('usage: heat.mjs [N ≥ 4] [steps ≥ 0]\n');
  await mpi.abort(2, 'bad arguments');
}
const HOT = 100;

// The process grid: py rows of ranks × px columns (dimsCreate: as square as the size allows, py ≥ px).
const [py, px] = Mpi.dimsCreate(world.size, [0, 0]);
const cart = await world.cartCreate([py, px], [false, false]);
const [cy, cx] = cart.coords(cart.rank);
const { source: north, dest: south } = cart.shift(0, 1);
const { source: west, dest: east } = cart.shift(1, 1);

/** Rows (or columns) of the plate a grid coordinate owns: [first, first + count). */
function share(total, parts, index) {
  const base = Math.floor(total / parts);
  const extra = total % parts;
  return [index * base + Math.min(index, extra), base + (index < extra ? 1 : 0)];
}
const [firstRow, rows] = share(N, py, cy);
const [firstCol, cols] = share(N, px, cx);
const H = rows + 2; // with ghost rows
const W = cols + 2; // with ghost columns
let grid = new Float64Array(H * W);
let next = new Float64Array(H * W);
const at = (i, j) => (i + 1) * W + (j + 1);

// The top edge of the plate is the ghost row above global row 0.
if (firstRow === 0) for (const g of [grid, next]) for (let j = 0; j < cols; j++) g[at(-1, j)] = HOT;

// The halos as subarrays of the (rows + 2) × (cols + 2) block, by their corner in block coordinates.
const halo = (height, width, i, j) => Datatype.createSubarray([H, W], [height, width], [i, j], 'C', Datatype.FLOAT64).commit();
const firstRowType = halo(1, cols, 1, 1);
const lastRowType = halo(1, cols, rows, 1);
const northGhost = halo(1, cols, 0, 1);
const southGhost = halo(1, cols, rows + 1, 1);
const firstColType = halo(rows, 1, 1, 1);
const lastColType = halo(rows, 1, 1, cols);
const westGhost = halo(rows, 1, 1, 0);
const eastGhost = halo(rows, 1, 1, cols + 1);

// Tags say which way the data travels: 1 south, 2 north, 3 east, 4 west.
const one = (datatype) => ({ datatype, count: 1 });
const exchange = (g) => [
  cart.recvInit(g, north, 1, one(northGhost)),
  cart.recvInit(g, south, 2, one(southGhost)),
  cart.recvInit(g, west, 3, one(westGhost)),
  cart.recvInit(g, east, 4, one(eastGhost)),
  cart.sendInit(g, south, 1, one(lastRowType)),
  cart.sendInit(g, north, 2, one(firstRowType)),
  cart.sendInit(g, east, 3, one(lastColType)),
  cart.sendInit(g, west, 4, one(firstColType)),
];
const halos = new Map([
  [grid, exchange(grid)],
  [next, exchange(next)],
]);

const start = mpi.wtime();
for (let s = 0; s < steps; s++) {
  const requests = halos.get(grid);
  Request.startAll(requests);
  await Request.waitAll(requests);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      next[at(i, j)] = 0.25 * (grid[at(i - 1, j)] + grid[at(i + 1, j)] + grid[at(i, j - 1)] + grid[at(i, j + 1)]);
    }
  }
  [grid, next] = [next, grid];
}
const elapsed = mpi.wtime() - start;

// Rank 0 gathers every block (interior only) and sums the plate in one fixed order.
const block = new Float64Array(rows * cols);
for (let i = 0; i < rows; i++) block.set(grid.subarray(at(i, 0), at(i, 0) + cols), i * cols);
const sizes = new Int32Array(world.size * 4);
await world.allgather(new Int32Array([firstRow, rows, firstCol, cols]), sizes);
const counts = Array.from({ length: world.size }, (_, r) => sizes[4 * r + 1] * sizes[4 * r + 3]);
const displs = counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
const all = world.rank === 0 ? new Float64Array(N * N) : null;
await world.gatherv(block, all, world.rank === 0 ? counts : null, world.rank === 0 ? displs : null, 0);
if (world.rank === 0) {
  const plate = new Float64Array(N * N);
  for (let r = 0; r < world.size; r++) {
    const [r0, nr, c0, nc] = sizes.subarray(4 * r, 4 * r + 4);
    for (let i = 0; i < nr; i++) plate.set(all.subarray(displs[r] + i * nc, displs[r] + (i + 1) * nc), (r0 + i) * N + c0);
  }
  let sum = 0;
  for (let k = 0; k < plate.length; k++) sum += plate[k];
  const centre = plate[(N >> 1) * N + (N >> 1)];
  process.stdout.write(`heat: ${N}x${N} plate, ${steps} steps: checksum ${sum.toPrecision(17)}, centre ${centre.toPrecision(17)}\n`);
  process.stdout.write(`heat: ${world.size} ranks as a ${px}x${py} grid on ${mpi.provider}, ${elapsed.toFixed(6)} s\n`);
}
for (const requests of halos.values()) for (const r of requests) r.free();
cart.free();
await mpi.finalize();
