// 2-D heat diffusion (Jacobi iteration) on an N×N plate whose top edge is held at 100°, decomposed
// over a px × py process grid made with comm.split: each rank owns a block with one ghost cell on
// every side and swaps halos with its four neighbours by sendrecv — rows on the column communicator,
// columns (a vector datatype: one cell per row) on the row communicator; PROC_NULL at the plate's
// edges. At the end rank 0 gathers the plate and prints a checksum that is the same for any number
// of ranks (the same arithmetic on every cell), which the tests compare with a one-rank run.
//
//   node examples/heat.mjs [N] [steps]
//   npx dapl run -n 6 examples/heat.mjs 96 300
import { Datatype, Mpi, PROC_NULL } from '@dapl/mpi';

const mpi = await Mpi.init();
const world = mpi.world;
const N = Number(process.argv[2] ?? 64);
const steps = Number(process.argv[3] ?? 200);
if (!Number.isInteger(N) || N < 4 || !Number.isInteger(steps) || steps < 0) {
  if (world.rank === 0) process.stderr.write('usage: heat.mjs [N ≥ 4] [steps ≥ 0]\n');
  await mpi.abort(2, 'bad arguments');
}
const HOT = 100;

// The process grid: px columns of ranks × py rows, px the largest divisor of size not above √size.
let px = Math.floor(Math.sqrt(world.size));
while (world.size % px !== 0) px--;
const py = world.size / px;
const cx = world.rank % px;
const cy = Math.floor(world.rank / px);
const row = await world.split(cy, cx); // the ranks of my grid row, west to east
const column = await world.split(cx, cy); // the ranks of my grid column, north to south

/** Rows (or columns) of the plate a grid coordinate owns: [first, first + count). */
function share(total, parts, index) {
  const base = Math.floor(total / parts);
  const extra = total % parts;
  return [index * base + Math.min(index, extra), base + (index < extra ? 1 : 0)];
}
const [firstRow, rows] = share(N, py, cy);
const [firstCol, cols] = share(N, px, cx);
const W = cols + 2; // with ghost columns
let grid = new Float64Array((rows + 2) * W);
let next = new Float64Array((rows + 2) * W);
const at = (i, j) => (i + 1) * W + (j + 1);

// The top edge of the plate is the ghost row above global row 0.
if (firstRow === 0) for (const g of [grid, next]) for (let j = 0; j < cols; j++) g[at(-1, j)] = HOT;

const columnType = Datatype.vector(rows, 1, W, Datatype.FLOAT64).commit();
const north = cy === 0 ? PROC_NULL : cy - 1;
const south = cy === py - 1 ? PROC_NULL : cy + 1;
const west = cx === 0 ? PROC_NULL : cx - 1;
const east = cx === px - 1 ? PROC_NULL : cx + 1;

async function exchangeHalos(g) {
  const rowView = (i) => g.subarray(at(i, 0), at(i, 0) + cols);
  // Send my first row north, receive my south ghost row from the south; then the other way.
  await column.sendrecv(rowView(0), north, 1, rowView(rows), south, 1);
  await column.sendrecv(rowView(rows - 1), south, 2, rowView(-1), north, 2);
  // Columns: one cell per row, W apart.
  const colView = (j) => g.subarray(at(0, j));
  await row.sendrecv(colView(0), west, 3, colView(cols), east, 3, { send: { datatype: columnType, count: 1 }, recv: { datatype: columnType, count: 1 } });
  await row.sendrecv(colView(cols - 1), east, 4, colView(-1), west, 4, { send: { datatype: columnType, count: 1 }, recv: { datatype: columnType, count: 1 } });
}

const start = mpi.wtime();
for (let s = 0; s < steps; s++) {
  await exchangeHalos(grid);
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
row.free();
column.free();
await mpi.finalize();
