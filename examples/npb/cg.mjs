// NAS Parallel Benchmarks CG (conjugate gradient): the smallest eigenvalue of a sparse symmetric
// positive definite matrix by the inverse power method, each power step solving A·z = x with 25
// unpreconditioned CG iterations; zeta = shift + 1/(x·z) is checked against NPB's official value
// (relative error ≤ 1e-10). The matrix is NPB's makea: the sum over the n rows of outer products of
// random sparse vectors (NPB's generator, every rank drawing the whole sequence as NPB's MPI version
// does and keeping the entries of its own rows), scaled down geometrically to condition 0.1, minus
// `shift` on the diagonal. Decomposition: NPB's MPI CG lays the matrix on a 2-D process grid; here
// each rank holds a block of rows (NPB's grid with one column), gathers the direction vector
// (allgatherv) for its part of A·p, and sums the dot products with allreduce.
//
//   node examples/npb/cg.mjs S
//   npx dapl run -n 4 --provider ib examples/npb/cg.mjs W
import { Mpi, Op } from '@dapl/mpi';
import { connectAll, kernelArguments, printResults, randlc, timeMeasured } from './common.mjs';

const CLASSES = {
  S: { na: 1400, nonzer: 7, niter: 15, shift: 10, zeta: 8.5971775078648 },
  W: { na: 7000, nonzer: 8, niter: 15, shift: 12, zeta: 10.362595087124 },
  A: { na: 14000, nonzer: 11, niter: 15, shift: 20, zeta: 17.130235054029 },
};
const RCOND = 0.1;
const CG_ITERATIONS = 25;
const EPSILON = 1e-10;

const mpi = await Mpi.init();
const world = mpi.world;
const { rank, size } = world;
const { cls, C } = await kernelArguments(mpi, 'cg', CLASSES, () => 1024);
const { na: n, nonzer, niter, shift } = C;
await connectAll(world);

// Rows [firstRow, lastRow) are this rank's; counts and displacements for the allgathervs.
const counts = [];
const displs = [];
for (let r = 0; r < size; r++) {
  displs.push(Math.floor((n * r) / size));
  counts.push(Math.floor((n * (r + 1)) / size) - displs[r]);
}
const firstRow = displs[rank];
const rows = counts[rank];
const lastRow = firstRow + rows;

if (rank === 0) process.stdout.write(`\n\n NAS Parallel Benchmarks (dapl.ts @dapl/mpi) - CG Benchmark\n\n Size: ${String(n).padStart(11)}\n Iterations: ${String(niter).padStart(5)}\n Number of active processes: ${String(size).padStart(5)}\n`);

/** NPB's makea and sparse, for rows [firstRow, lastRow): the local matrix in compressed rows (columns 0-based, ascending). */
function makeA() {
  const rng = { x: 314159265 };
  const amult = 1220703125;
  randlc(rng, amult);
  let nn1 = 1;
  do nn1 *= 2;
  while (nn1 < n);
  // sprnvc + vecset per outer row: nonzer random (value, position) pairs, positions distinct, then
  // 0.5 on the diagonal position (replacing, or added as one more element).
  const width = nonzer + 1;
  const arow = new Int32Array(n);
  const acol = new Int32Array(n * width);
  const aelt = new Float64Array(n * width);
  for (let i = 0; i < n; i++) {
    const base = i * width;
    let nzv = 0;
    while (nzv < nonzer) {
      const value = randlc(rng, amult);
      const position = Math.trunc(nn1 * randlc(rng, amult));
      if (position >= n) continue;
      let seen = false;
      for (let k = 0; k < nzv; k++) if (acol[base + k] === position) seen = true;
      if (seen) continue;
      aelt[base + nzv] = value;
      acol[base + nzv++] = position;
    }
    let set = false;
    for (let k = 0; k < nzv; k++) {
      if (acol[base + k] === i) {
        aelt[base + k] = 0.5;
        set = true;
      }
    }
    if (!set) {
      aelt[base + nzv] = 0.5;
      acol[base + nzv++] = i;
    }
    arow[i] = nzv;
  }
  // sparse: outer product i adds aelt[j]·aelt[jcol]·size to A[j][jcol], size shrinking by `ratio`
  // each i. Pass 1 counts this rank's contributions per row, pass 2 lists them in generation order.
  const perRow = new Int32Array(rows + 1);
  for (let i = 0; i < n; i++) {
    for (let e = 0; e < arow[i]; e++) {
      const j = acol[i * width + e];
      if (j >= firstRow && j < lastRow) perRow[j - firstRow + 1] += arow[i];
    }
  }
  for (let j = 0; j < rows; j++) perRow[j + 1] += perRow[j];
  const total = perRow[rows];
  const tcol = new Int32Array(total);
  const tval = new Float64Array(total);
  const fill = perRow.slice(0, rows);
  const ratio = RCOND ** (1 / n);
  let scaleSize = 1;
  for (let i = 0; i < n; i++) {
    const base = i * width;
    for (let e = 0; e < arow[i]; e++) {
      const j = acol[base + e];
      if (j < firstRow || j >= lastRow) continue;
      const scale = scaleSize * aelt[base + e];
      for (let f = 0; f < arow[i]; f++) {
        const jcol = acol[base + f];
        let va = aelt[base + f] * scale;
        if (jcol === j && j === i) va = va + RCOND - shift;
        const at = fill[j - firstRow]++;
        tcol[at] = jcol;
        tval[at] = va;
      }
    }
    scaleSize *= ratio;
  }
  // Per row: a stable sort by column, then duplicates summed in generation order (as sparse's
  // ordered insertion does), so the values are bit-identical to NPB's.
  const rowstr = new Int32Array(rows + 1);
  const colidx = new Int32Array(total);
  const a = new Float64Array(total);
  let nz = 0;
  for (let j = 0; j < rows; j++) {
    const from = perRow[j];
    const to = perRow[j + 1];
    for (let k = from + 1; k < to; k++) {
      const c = tcol[k];
      const v = tval[k];
      let m = k - 1;
      while (m >= from && tcol[m] > c) {
        tcol[m + 1] = tcol[m];
        tval[m + 1] = tval[m];
        m--;
      }
      tcol[m + 1] = c;
      tval[m + 1] = v;
    }
    rowstr[j] = nz;
    for (let k = from; k < to; k++) {
      if (nz > rowstr[j] && colidx[nz - 1] === tcol[k]) a[nz - 1] += tval[k];
      else {
        colidx[nz] = tcol[k];
        a[nz++] = 0 + tval[k];
      }
    }
  }
  rowstr[rows] = nz;
  return { rowstr, colidx: colidx.subarray(0, nz), a: a.subarray(0, nz) };
}

const { rowstr, colidx, a } = makeA();
const x = new Float64Array(rows);
const z = new Float64Array(rows);
const p = new Float64Array(rows);
const q = new Float64Array(rows);
const r = new Float64Array(rows);
const full = new Float64Array(n);
const partial = new Float64Array(2);
const sums = new Float64Array(2);
const partialOne = partial.subarray(0, 1);
const sumOne = sums.subarray(0, 1);

/** out = A·v for this rank's rows, v gathered whole from every rank's part first. */
async function multiply(v, out) {
  await world.allgatherv(v, full, counts, displs);
  for (let j = 0; j < rows; j++) {
    let sum = 0;
    for (let k = rowstr[j]; k < rowstr[j + 1]; k++) sum += a[k] * full[colidx[k]];
    out[j] = sum;
  }
}

/** The global sum of a local partial sum. */
async function globalSum(value) {
  partial[0] = value;
  await world.allreduce(partialOne, sumOne, Op.SUM);
  return sums[0];
}

/** NPB's conj_grad: z ≈ A⁻¹x by 25 CG iterations from z = 0; returns ||x − A·z||. */
async function conjGrad() {
  let rho = 0;
  for (let j = 0; j < rows; j++) {
    z[j] = 0;
    r[j] = x[j];
    p[j] = x[j];
    rho += r[j] * r[j];
  }
  rho = await globalSum(rho);
  for (let it = 0; it < CG_ITERATIONS; it++) {
    await multiply(p, q);
    let d = 0;
    for (let j = 0; j < rows; j++) d += p[j] * q[j];
    const alpha = rho / (await globalSum(d));
    const rho0 = rho;
    rho = 0;
    for (let j = 0; j < rows; j++) {
      z[j] += alpha * p[j];
      r[j] -= alpha * q[j];
      rho += r[j] * r[j];
    }
    rho = await globalSum(rho);
    const beta = rho / rho0;
    for (let j = 0; j < rows; j++) p[j] = r[j] + beta * p[j];
  }
  await multiply(z, r);
  let sum = 0;
  for (let j = 0; j < rows; j++) sum += (x[j] - r[j]) ** 2;
  return Math.sqrt(await globalSum(sum));
}

x.fill(1);
await world.barrier();
const start = mpi.wtime();
let zeta = 0;
for (let it = 1; it <= niter; it++) {
  const rnorm = await conjGrad();
  partial[0] = 0;
  partial[1] = 0;
  for (let j = 0; j < rows; j++) {
    partial[0] += x[j] * z[j];
    partial[1] += z[j] * z[j];
  }
  await world.allreduce(partial, sums, Op.SUM);
  zeta = shift + 1 / sums[0];
  if (rank === 0) {
    if (it === 1) process.stdout.write('\n   iteration           ||r||                 zeta\n');
    process.stdout.write(`    ${String(it).padStart(5)}       ${rnorm.toExponential(13).padStart(20)}${zeta.toFixed(13).padStart(20)}\n`);
  }
  const norm = 1 / Math.sqrt(sums[1]);
  for (let j = 0; j < rows; j++) x[j] = norm * z[j];
}
const seconds = mpi.wtime() - start;

if (rank === 0) {
  const err = Math.abs(zeta - C.zeta) / C.zeta;
  const verified = err <= EPSILON;
  process.stdout.write(`\n Benchmark completed\n ${verified ? 'VERIFICATION SUCCESSFUL' : 'VERIFICATION FAILED'}\n Zeta is    ${zeta.toExponential(13)}\n Error is   ${err.toExponential(13)}\n`);
  const perRowWork = nonzer * (nonzer + 1);
  const mops = (2 * niter * n * (3 + perRowWork + 25 * (5 + perRowWork) + 3)) / seconds / 1e6;
  printResults({ name: 'CG', cls, size: n, iterations: niter, seconds, processes: size, mops, operation: 'floating point', verified, provider: mpi.provider, clock: timeMeasured(mpi) });
  if (!verified) await mpi.abort(1, `CG: zeta ${zeta}, expected ${C.zeta}`);
}
await mpi.finalize();
