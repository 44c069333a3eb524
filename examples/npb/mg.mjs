// NAS Parallel Benchmarks MG (multigrid): `nit` V-cycles of NPB's multigrid solver for the 3-D
// Poisson problem ∇²u = v on a periodic n³ grid, v zero but for +1 at the ten largest and −1 at the
// ten smallest of n³ numbers from NPB's generator; the L2 norm of the final residual is checked
// against NPB's official value (relative error ≤ 1e-8). The operators are NPB's: resid (the 27-point
// residual), psinv (the smoother), rprj3 (trilinear restriction) and interp (trilinear prolongation),
// evaluated in NPB's order so that the norm matches. Decomposition: NPB's MPI MG splits the grid over a
// 3-D process grid; here every level is split into slabs of z-planes (the process grid 1×1×p) with
// one ghost plane each side, exchanged with the two neighbouring ranks after each operator (comm3).
// A level with fewer planes than ranks is held whole by every rank and computed redundantly (NPB
// leaves processes idle there instead): the restriction onto it gathers the finer level (allgather).
//
//   node examples/npb/mg.mjs S
//   npx dapl run -n 4 --provider ib examples/npb/mg.mjs W
import { Mpi, Op } from '@dapl/mpi';
import { connectAll, kernelArguments, nextSeed, power46, printResults, timeMeasured, vranlc } from './common.mjs';

const CLASSES = {
  S: { log2n: 5, nit: 4, norm: 0.5307707005734e-4 },
  W: { log2n: 7, nit: 4, norm: 0.6467329375339e-5 },
  A: { log2n: 8, nit: 4, norm: 0.2433365309069e-5 },
};
const EPSILON = 1e-8;
const A = [-8 / 3, 0, 1 / 6, 1 / 12];
// The S(a) smoother of classes S, W and A.
const SMOOTHER = [-3 / 8, 1 / 32, -1 / 64, 0];
const MM = 10;

const mpi = await Mpi.init();
const world = mpi.world;
const { rank, size } = world;
const { cls, C } = await kernelArguments(mpi, 'mg', CLASSES, (c) => 2 ** c.log2n);
const lt = C.log2n;
const n = 2 ** lt;
const nit = C.nit;
await connectAll(world);

/** One level's grid: n³ points, this rank's planes [z0, z0 + planes) (all of them when replicated), ghosts around. */
function level(k) {
  const nk = 2 ** k;
  const replicated = nk < size;
  const planes = replicated ? nk : nk / size;
  const n1 = nk + 2;
  return { k, nk, replicated, planes, z0: replicated ? 0 : rank * planes, n1, plane: n1 * n1, length: n1 * n1 * (planes + 2) };
}
const levels = [];
for (let k = 1; k <= lt; k++) levels[k] = level(k);
const u = levels.map((g) => new Float64Array(g.length));
const r = levels.map((g) => new Float64Array(g.length));
const v = new Float64Array(levels[lt].length);
// Scratch: a line of partial sums (NPB's u1/u2), and whole copies of the level where the grid becomes replicated.
const line1 = new Float64Array(n + 2);
const line2 = new Float64Array(n + 2);
const line3 = new Float64Array(n + 2);
const edge = levels.find((g) => g !== undefined && !g.replicated && g.k > 1 && levels[g.k - 1].replicated);
const whole = edge === undefined ? undefined : new Float64Array(edge.plane * (edge.nk + 2));
const below = (rank + size - 1) % size;
const above = (rank + 1) % size;

/** NPB's comm3: periodic ghosts in x and y here, in z from the neighbouring ranks' edge planes. */
async function comm3(a, g) {
  const { n1, plane, planes } = g;
  for (let i3 = 1; i3 <= planes; i3++) {
    for (let i2 = 1; i2 <= n1 - 2; i2++) {
      const row = i3 * plane + i2 * n1;
      a[row] = a[row + n1 - 2];
      a[row + n1 - 1] = a[row + 1];
    }
    const base = i3 * plane;
    a.copyWithin(base, base + (n1 - 2) * n1, base + (n1 - 1) * n1);
    a.copyWithin(base + (n1 - 1) * n1, base + n1, base + 2 * n1);
  }
  if (g.replicated || size === 1) {
    a.copyWithin(0, planes * plane, (planes + 1) * plane);
    a.copyWithin((planes + 1) * plane, plane, 2 * plane);
    return;
  }
  await Promise.all([
    world.irecv(a.subarray(0, plane), below, 1).wait(),
    world.irecv(a.subarray((planes + 1) * plane, (planes + 2) * plane), above, 2).wait(),
    world.isend(a.subarray(planes * plane, (planes + 1) * plane), above, 1).wait(),
    world.isend(a.subarray(plane, 2 * plane), below, 2).wait(),
  ]);
}

/**
 * Along the line of x at `c`: line1 = the four edge neighbours in y and z, line2 = the four corner
 * neighbours in the y-z plane (NPB's u1/u2 and r1/r2, shared by resid and psinv).
 */
function neighbourSums(a, c, n1, plane) {
  for (let i1 = 0; i1 < n1; i1++) {
    line1[i1] = a[c - n1 + i1] + a[c + n1 + i1] + a[c - plane + i1] + a[c + plane + i1];
    line2[i1] = a[c - plane - n1 + i1] + a[c - plane + n1 + i1] + a[c + plane - n1 + i1] + a[c + plane + n1 + i1];
  }
}

/** NPB's resid: r = v − A·u on the interior, then comm3 (r and v may be the same array). */
async function resid(uu, vv, rr, g) {
  const { n1, plane, planes } = g;
  for (let i3 = 1; i3 <= planes; i3++) {
    for (let i2 = 1; i2 <= n1 - 2; i2++) {
      const c = i3 * plane + i2 * n1;
      neighbourSums(uu, c, n1, plane);
      for (let i1 = 1; i1 <= n1 - 2; i1++) {
        rr[c + i1] = vv[c + i1] - A[0] * uu[c + i1] - A[2] * (line2[i1] + line1[i1 - 1] + line1[i1 + 1]) - A[3] * (line2[i1 - 1] + line2[i1 + 1]);
      }
    }
  }
  await comm3(rr, g);
}

/** NPB's psinv, the smoother: u = u + C·r, then comm3. */
async function psinv(rr, uu, g) {
  const { n1, plane, planes } = g;
  const c0 = SMOOTHER[0];
  const c1 = SMOOTHER[1];
  const c2 = SMOOTHER[2];
  for (let i3 = 1; i3 <= planes; i3++) {
    for (let i2 = 1; i2 <= n1 - 2; i2++) {
      const c = i3 * plane + i2 * n1;
      neighbourSums(rr, c, n1, plane);
      for (let i1 = 1; i1 <= n1 - 2; i1++) {
        uu[c + i1] = uu[c + i1] + c0 * rr[c + i1] + c1 * (rr[c + i1 - 1] + rr[c + i1 + 1] + line1[i1]) + c2 * (line2[i1] + line1[i1 - 1] + line1[i1 + 1]);
      }
    }
  }
  await comm3(uu, g);
}

/** NPB's rprj3 on arrays: coarse point J takes fine point 2J and its 26 neighbours (fine planes `rz` ↔ coarse planes `sz`). */
function restrict(rr, f, s, cg) {
  const { n1: m1, plane: mp, planes } = cg;
  const { n1, plane } = f;
  for (let j3 = 1; j3 <= planes; j3++) {
    for (let j2 = 1; j2 <= m1 - 2; j2++) {
      const c = 2 * j3 * plane + 2 * j2 * n1;
      for (let j1 = 1; j1 <= m1 - 1; j1++) {
        const i = c + 2 * j1 - 1;
        line1[2 * j1 - 1] = rr[i - n1] + rr[i + n1] + rr[i - plane] + rr[i + plane];
        line2[2 * j1 - 1] = rr[i - n1 - plane] + rr[i - n1 + plane] + rr[i + n1 - plane] + rr[i + n1 + plane];
      }
      for (let j1 = 1; j1 <= m1 - 2; j1++) {
        const i1 = 2 * j1;
        const i = c + i1;
        const y2 = rr[i - n1 - plane] + rr[i - n1 + plane] + rr[i + n1 - plane] + rr[i + n1 + plane];
        const x2 = rr[i - n1] + rr[i + n1] + rr[i - plane] + rr[i + plane];
        s[j3 * mp + j2 * m1 + j1] =
          0.5 * rr[i] + 0.25 * (rr[i - 1] + rr[i + 1] + x2) + 0.125 * (line1[i1 - 1] + line1[i1 + 1] + y2) + 0.0625 * (line2[i1 - 1] + line2[i1 + 1]);
      }
    }
  }
}

/** rprj3 from level k to k − 1, gathering level k whole first where level k − 1 is replicated; then comm3. */
async function rprj3(k) {
  const f = levels[k];
  const cg = levels[k - 1];
  let fine = r[k];
  let from = f;
  if (cg.replicated && !f.replicated && size > 1) {
    await world.allgather(fine.subarray(f.plane, (f.planes + 1) * f.plane), whole.subarray(f.plane, (f.nk + 1) * f.plane));
    from = { ...f, replicated: true, planes: f.nk, z0: 0 };
    await comm3(whole, from);
    fine = whole;
  }
  restrict(fine, from, r[k - 1], cg);
  await comm3(r[k - 1], cg);
}

/** NPB's interp on arrays: u += the trilinear interpolation of coarse z (coarse planes 0 … planes + 1 feed fine planes 0 … 2·planes + 1). */
function prolong(z, cg, uu, f) {
  const { n1: m1, plane: mp, planes } = cg;
  const { n1, plane } = f;
  for (let i3 = 0; i3 <= planes; i3++) {
    for (let i2 = 0; i2 <= m1 - 2; i2++) {
      const c = i3 * mp + i2 * m1;
      for (let i1 = 0; i1 < m1; i1++) {
        line1[i1] = z[c + m1 + i1] + z[c + i1];
        line2[i1] = z[c + mp + i1] + z[c + i1];
        line3[i1] = z[c + mp + m1 + i1] + z[c + mp + i1] + line1[i1];
      }
      const o = 2 * i3 * plane + 2 * i2 * n1;
      for (let i1 = 0; i1 <= m1 - 2; i1++) {
        const e = o + 2 * i1;
        uu[e] = uu[e] + z[c + i1];
        uu[e + 1] = uu[e + 1] + 0.5 * (z[c + i1 + 1] + z[c + i1]);
        uu[e + n1] = uu[e + n1] + 0.5 * line1[i1];
        uu[e + n1 + 1] = uu[e + n1 + 1] + 0.25 * (line1[i1] + line1[i1 + 1]);
        uu[e + plane] = uu[e + plane] + 0.5 * line2[i1];
        uu[e + plane + 1] = uu[e + plane + 1] + 0.25 * (line2[i1] + line2[i1 + 1]);
        uu[e + plane + n1] = uu[e + plane + n1] + 0.25 * line3[i1];
        uu[e + plane + n1 + 1] = uu[e + plane + n1 + 1] + 0.125 * (line3[i1] + line3[i1 + 1]);
      }
    }
  }
}

/** interp from level k − 1 to k; from a replicated level onto a split one, into a whole copy whose planes this rank adds. */
function interp(k) {
  const f = levels[k];
  const cg = levels[k - 1];
  if (cg.replicated && !f.replicated && size > 1) {
    whole.fill(0);
    prolong(u[k - 1], cg, whole, { ...f, planes: f.nk });
    const part = whole.subarray(f.z0 * f.plane, (f.z0 + f.planes + 2) * f.plane);
    for (let i = 0; i < part.length; i++) u[k][i] = u[k][i] + part[i];
  } else prolong(u[k - 1], cg, u[k], f);
}

/** NPB's mg3P: one V-cycle. */
async function mg3P() {
  for (let k = lt; k > 1; k--) await rprj3(k);
  u[1].fill(0);
  await psinv(r[1], u[1], levels[1]);
  for (let k = 2; k < lt; k++) {
    u[k].fill(0);
    interp(k);
    await resid(u[k], r[k], r[k], levels[k]);
    await psinv(r[k], u[k], levels[k]);
  }
  interp(lt);
  await resid(u[lt], v, r[lt], levels[lt]);
  await psinv(r[lt], u[lt], levels[lt]);
}

/** NPB's norm2u3: the L2 norm (root mean square) and the largest magnitude of the top level's interior. */
async function norm2u3(a) {
  const { n1, plane, planes } = levels[lt];
  let s = 0;
  let max = 0;
  for (let i3 = 1; i3 <= planes; i3++) {
    for (let i2 = 1; i2 <= n1 - 2; i2++) {
      for (let i1 = 1; i1 <= n1 - 2; i1++) {
        const x = a[i3 * plane + i2 * n1 + i1];
        s += x * x;
        if (Math.abs(x) > max) max = Math.abs(x);
      }
    }
  }
  const sum = new Float64Array(1);
  const most = new Float64Array(1);
  await world.allreduce(new Float64Array([s]), sum, Op.SUM);
  await world.allreduce(new Float64Array([max]), most, Op.MAX);
  return { rnm2: Math.sqrt(sum[0] / n ** 3), rnmu: most[0] };
}

const greater = (p, q) => p > q;
const less = (p, q) => p < q;

/** Insert (value, at) into the best-first list of ten if it beats the tenth. */
function keep(values, at, value, where, better) {
  if (!better(value, values[MM - 1])) return;
  let i = MM - 1;
  for (; i > 0 && better(value, values[i - 1]); i--) {
    values[i] = values[i - 1];
    at[i] = at[i - 1];
  }
  values[i] = value;
  at[i] = where;
}

/** NPB's zran3: v = +1 at the ten largest and −1 at the ten smallest of the grid's random numbers, 0 elsewhere. */
async function zran3() {
  const g = levels[lt];
  const { n1, plane, planes, z0 } = g;
  const a = 1220703125;
  const a1 = power46(a, n);
  const a2 = power46(a, n * n);
  // The seed of this rank's first point: the generator jumped over the planes below.
  let x0 = nextSeed(314159265, power46(a, n * n * z0));
  v.fill(0);
  const largest = new Float64Array(MM).fill(0);
  const smallest = new Float64Array(MM).fill(1);
  const largestAt = new Float64Array(MM);
  const smallestAt = new Float64Array(MM);
  for (let i3 = 1; i3 <= planes; i3++) {
    let x1 = x0;
    for (let i2 = 1; i2 <= n; i2++) {
      const row = i3 * plane + i2 * n1;
      vranlc(n, x1, a, v.subarray(row + 1, row + 1 + n));
      x1 = nextSeed(x1, a1);
      for (let i1 = 1; i1 <= n; i1++) {
        const where = (z0 + i3 - 1) * n * n + (i2 - 1) * n + (i1 - 1);
        keep(largest, largestAt, v[row + i1], where, greater);
        keep(smallest, smallestAt, v[row + i1], where, less);
      }
    }
    x0 = nextSeed(x0, a2);
  }
  // Every rank's ten best of each kind, and from them the grid's.
  const mine = new Float64Array(4 * MM);
  mine.set(largest, 0);
  mine.set(largestAt, MM);
  mine.set(smallest, 2 * MM);
  mine.set(smallestAt, 3 * MM);
  const all = new Float64Array(4 * MM * size);
  await world.allgather(mine, all);
  largest.fill(0);
  smallest.fill(1);
  for (let p = 0; p < size; p++) {
    for (let i = 0; i < MM; i++) {
      const b = 4 * MM * p;
      keep(largest, largestAt, all[b + i], all[b + MM + i], greater);
      keep(smallest, smallestAt, all[b + 2 * MM + i], all[b + 3 * MM + i], less);
    }
  }
  v.fill(0);
  const mark = (where, value) => {
    const z = Math.floor(where / (n * n));
    if (z < z0 || z >= z0 + planes) return;
    const y = Math.floor(where / n) % n;
    v[(z - z0 + 1) * plane + (y + 1) * n1 + (where % n) + 1] = value;
  };
  for (let i = MM - 1; i >= 0; i--) mark(smallestAt[i], -1);
  for (let i = MM - 1; i >= 0; i--) mark(largestAt[i], 1);
  await comm3(v, g);
}

if (rank === 0) process.stdout.write(`\n\n NAS Parallel Benchmarks (dapl.ts @dapl/mpi) - MG Benchmark\n\n Size: ${n}x${n}x${n}  (class ${cls})\n Iterations: ${nit}\n Number of active processes: ${size}\n`);
await zran3();
await world.barrier();
const start = mpi.wtime();
await resid(u[lt], v, r[lt], levels[lt]);
await norm2u3(r[lt]);
for (let it = 1; it <= nit; it++) {
  if (rank === 0 && (it === 1 || it === nit || it % 5 === 0)) process.stdout.write(`  iter ${String(it).padStart(3)}\n`);
  await mg3P();
  await resid(u[lt], v, r[lt], levels[lt]);
}
const { rnm2 } = await norm2u3(r[lt]);
const seconds = mpi.wtime() - start;

if (rank === 0) {
  const err = Math.abs(rnm2 - C.norm) / C.norm;
  const verified = err <= EPSILON;
  process.stdout.write(
    `\n Benchmark completed\n ${verified ? 'VERIFICATION SUCCESSFUL' : 'VERIFICATION FAILED'}\n L2 Norm is ${rnm2.toExponential(13)}\n` +
      (verified ? ` Error is   ${err.toExponential(13)}\n` : ` The correct L2 Norm is ${C.norm.toExponential(13)}\n`),
  );
  printResults({ name: 'MG', cls, size: `${n}x${n}x${n}`, iterations: nit, seconds, processes: size, mops: (58 * nit * n ** 3) / seconds / 1e6, operation: 'floating point', verified, provider: mpi.provider, clock: timeMeasured(mpi) });
  if (!verified) await mpi.abort(1, `MG: L2 norm ${rnm2}, expected ${C.norm}`);
}
await mpi.finalize();
