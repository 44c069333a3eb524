// NAS Parallel Benchmarks FT (3-D FFT): the solution of the heat equation ∂u/∂t = α∇²u on a periodic
// nx × ny × nz grid by spectral evolution: a 3-D forward FFT of NPB's random initial state, then per
// time step t a multiplication by exp(−4απ²|k|²) (cumulative) and a 3-D inverse FFT, whose checksum
// (1024 fixed points) is checked against NPB's official value for every step (relative error ≤ 1e-12).
// The 1-D FFTs are NPB's Stockham variant (cfftz/fftz2, the same roots of unity and order of
// operations). Decomposition: NPB's MPI FT "1-D layout": each rank holds a slab of z-planes for the
// FFTs along x and y, and an alltoall transposes the grid into slabs of y (z contiguous) for the FFTs
// along z, where the evolution also happens; the inverse transform goes back the same way.
//
//   node examples/npb/ft.mjs S
//   npx dapl run -n 4 --provider ib examples/npb/ft.mjs W
import { Mpi, Op } from '@dapl/mpi';
import { connectAll, kernelArguments, nextSeed, power46, printResults, timeMeasured, vranlc } from './common.mjs';

const CLASSES = {
  S: {
    nx: 64, ny: 64, nz: 64, niter: 6,
    checksums: [
      [5.546087004964e2, 4.845363331978e2], [5.546385409189e2, 4.865304269511e2], [5.546148406171e2, 4.883910722336e2],
      [5.545423607415e2, 4.901273169046e2], [5.544255039624e2, 4.917475857993e2], [5.542683411902e2, 4.932597244941e2],
    ],
  },
  W: {
    nx: 128, ny: 128, nz: 32, niter: 6,
    checksums: [
      [5.673612178944e2, 5.293246849175e2], [5.631436885271e2, 5.282149986629e2], [5.594024089970e2, 5.270996558037e2],
      [5.560698047020e2, 5.260027904925e2], [5.530898991250e2, 5.249400845633e2], [5.504159734538e2, 5.239212247086e2],
    ],
  },
  A: {
    nx: 256, ny: 256, nz: 128, niter: 6,
    checksums: [
      [5.046735008193e2, 5.114047905510e2], [5.059412319734e2, 5.098809666433e2], [5.069376896287e2, 5.098144042213e2],
      [5.077892868474e2, 5.101336130759e2], [5.085233095391e2, 5.104914655194e2], [5.091487099959e2, 5.107917842803e2],
    ],
  },
};
const EPSILON = 1e-12;
const SEED = 314159265;
const A = 1220703125;
const ALPHA = 1e-6;

const mpi = await Mpi.init();
const world = mpi.world;
const { rank, size } = world;
const { cls, C } = await kernelArguments(mpi, 'ft', CLASSES, (c) => Math.min(c.ny, c.nz));
const { nx, ny, nz, niter } = C;
await connectAll(world);
const ntotal = nx * ny * nz;
// Slab sizes: z-planes in layout 1 ([z][y][x]), y-planes in layout 2 ([y][x][z]).
const nzl = nz / size;
const nyl = ny / size;
const z0 = rank * nzl;
const y0 = rank * nyl;
const count = nx * ny * nzl;
const block = count / size;

// Complex arrays interleave (re, im).
const slab = new Float64Array(2 * count);
const u0 = new Float64Array(2 * count);
const u1 = new Float64Array(2 * count);
const twiddle = new Float64Array(count);
const sendBuffer = new Float64Array(2 * count);
const recvBuffer = new Float64Array(2 * count);

// NPB's fft_init: the roots exp(iπj/ln) of each stage ln = 1, 2, 4, … at [ln + j].
const maxn = Math.max(nx, ny, nz);
const rootRe = new Float64Array(maxn);
const rootIm = new Float64Array(maxn);
for (let ln = 1; ln < maxn; ln *= 2) {
  const t = Math.PI / ln;
  for (let j = 0; j < ln; j++) {
    const tj = j * t;
    rootRe[ln + j] = Math.cos(tj);
    rootIm[ln + j] = Math.sin(tj);
  }
}
const xr = new Float64Array(maxn);
const xi = new Float64Array(maxn);
const yr = new Float64Array(maxn);
const yi = new Float64Array(maxn);

/** NPB's fftz2: stage l of the Stockham FFT of length n = 2^m, from (ar, ai) into (br, bi); `sign` −1 conjugates the roots. */
function fftz2(l, m, n, sign, ar, ai, br, bi) {
  const n1 = n / 2;
  const lk = 2 ** (l - 1);
  const li = 2 ** (m - l);
  const lj = 2 * lk;
  for (let i = 0; i < li; i++) {
    const i11 = i * lk;
    const i12 = i11 + n1;
    const i21 = i * lj;
    const i22 = i21 + lk;
    const ur = rootRe[li + i];
    const ui = sign * rootIm[li + i];
    for (let k = 0; k < lk; k++) {
      const x11r = ar[i11 + k];
      const x11i = ai[i11 + k];
      const x21r = ar[i12 + k];
      const x21i = ai[i12 + k];
      br[i21 + k] = x11r + x21r;
      bi[i21 + k] = x11i + x21i;
      const dr = x11r - x21r;
      const di = x11i - x21i;
      br[i22 + k] = ur * dr - ui * di;
      bi[i22 + k] = ur * di + ui * dr;
    }
  }
}

/** NPB's cfftz on one line of `data`: n complex points from complex index `base`, `stride` apart. */
function fftLine(data, base, stride, n, sign) {
  const m = Math.log2(n);
  for (let j = 0; j < n; j++) {
    xr[j] = data[2 * (base + j * stride)];
    xi[j] = data[2 * (base + j * stride) + 1];
  }
  let inX = true;
  for (let l = 1; l <= m; l += 2) {
    fftz2(l, m, n, sign, xr, xi, yr, yi);
    if (l === m) {
      inX = false;
      break;
    }
    fftz2(l + 1, m, n, sign, yr, yi, xr, xi);
  }
  const outR = inX ? xr : yr;
  const outI = inX ? xi : yi;
  for (let j = 0; j < n; j++) {
    data[2 * (base + j * stride)] = outR[j];
    data[2 * (base + j * stride) + 1] = outI[j];
  }
}

/** FFTs along x and then y of layout 1 (forward), or y and then x (inverse). */
function fftXY(sign) {
  const alongX = () => {
    for (let z = 0; z < nzl; z++) for (let y = 0; y < ny; y++) fftLine(slab, (z * ny + y) * nx, 1, nx, sign);
  };
  const alongY = () => {
    for (let z = 0; z < nzl; z++) for (let x = 0; x < nx; x++) fftLine(slab, z * ny * nx + x, nx, ny, sign);
  };
  if (sign > 0) {
    alongX();
    alongY();
  } else {
    alongY();
    alongX();
  }
}

/** FFTs along z of layout 2. */
function fftZ(data, sign) {
  for (let y = 0; y < nyl; y++) for (let x = 0; x < nx; x++) fftLine(data, (y * nx + x) * nz, 1, nz, sign);
}

/** Layout 1 (slab) → layout 2 (out): rank s gets the rows of its y range from every z-plane here. */
async function transposeForward(out) {
  for (let s = 0; s < size; s++) {
    for (let z = 0; z < nzl; z++) {
      for (let y = 0; y < nyl; y++) {
        const from = 2 * (z * ny + s * nyl + y) * nx;
        sendBuffer.set(slab.subarray(from, from + 2 * nx), 2 * (s * block + (z * nyl + y) * nx));
      }
    }
  }
  await world.alltoall(sendBuffer, recvBuffer);
  for (let r = 0; r < size; r++) {
    for (let z = 0; z < nzl; z++) {
      for (let y = 0; y < nyl; y++) {
        const from = 2 * (r * block + (z * nyl + y) * nx);
        const to = 2 * (y * nx * nz + r * nzl + z);
        for (let x = 0; x < nx; x++) {
          out[to + 2 * x * nz] = recvBuffer[from + 2 * x];
          out[to + 2 * x * nz + 1] = recvBuffer[from + 2 * x + 1];
        }
      }
    }
  }
}

/** Layout 2 (data) → layout 1 (slab), the inverse of transposeForward. */
async function transposeBack(data) {
  for (let s = 0; s < size; s++) {
    for (let z = 0; z < nzl; z++) {
      for (let y = 0; y < nyl; y++) {
        const to = 2 * (s * block + (z * nyl + y) * nx);
        const from = 2 * (y * nx * nz + s * nzl + z);
        for (let x = 0; x < nx; x++) {
          sendBuffer[to + 2 * x] = data[from + 2 * x * nz];
          sendBuffer[to + 2 * x + 1] = data[from + 2 * x * nz + 1];
        }
      }
    }
  }
  await world.alltoall(sendBuffer, recvBuffer);
  for (let r = 0; r < size; r++) {
    for (let z = 0; z < nzl; z++) {
      for (let y = 0; y < nyl; y++) {
        const from = 2 * (r * block + (z * nyl + y) * nx);
        slab.set(recvBuffer.subarray(from, from + 2 * nx), 2 * (z * ny + r * nyl + y) * nx);
      }
    }
  }
}

/** NPB's compute_indexmap: exp(−4απ²(k̄x² + k̄y² + k̄z²)) at each point of layout 2, k̄ the signed wave number. */
function computeTwiddle() {
  const ap = -4 * ALPHA * Math.PI * Math.PI;
  const folded = (i, n) => ((i + n / 2) % n) - n / 2;
  for (let y = 0; y < nyl; y++) {
    const jj = folded(y0 + y, ny);
    for (let x = 0; x < nx; x++) {
      const ii = folded(x, nx);
      const ij2 = jj * jj + ii * ii;
      for (let z = 0; z < nz; z++) {
        const kk = folded(z, nz);
        twiddle[(y * nx + x) * nz + z] = Math.exp(ap * (kk * kk + ij2));
      }
    }
  }
}

/** NPB's compute_initial_conditions: 2·nx·ny random numbers per z-plane, this rank's planes found by jumping the generator. */
function computeInitialConditions() {
  let start = nextSeed(SEED, power46(A, 2 * nx * ny * z0));
  const jump = power46(A, 2 * nx * ny);
  for (let z = 0; z < nzl; z++) {
    vranlc(2 * nx * ny, start, A, slab.subarray(2 * z * nx * ny, 2 * (z + 1) * nx * ny));
    start = nextSeed(start, jump);
  }
}

/** NPB's checksum: the sum of 1024 fixed points of layout 1 over the grid size, reduced to rank 0. */
async function checksum() {
  const chk = new Float64Array(2);
  for (let j = 1; j <= 1024; j++) {
    const z = (5 * j) % nz;
    if (z < z0 || z >= z0 + nzl) continue;
    const at = 2 * (((z - z0) * ny + ((3 * j) % ny)) * nx + (j % nx));
    chk[0] += slab[at];
    chk[1] += slab[at + 1];
  }
  chk[0] /= ntotal;
  chk[1] /= ntotal;
  const all = new Float64Array(2);
  await world.reduce(chk, all, Op.SUM, 0);
  return all;
}

if (rank === 0) process.stdout.write(`\n\n NAS Parallel Benchmarks (dapl.ts @dapl/mpi) - FT Benchmark\n\n Size                : ${nx}x${ny}x${nz}\n Iterations          : ${niter}\n Number of processes : ${size}\n Processor array     : 1x${size}\n Layout type         : 1D\n`);
await world.barrier();
const start = mpi.wtime();
computeTwiddle();
computeInitialConditions();
fftXY(1);
await transposeForward(u0);
fftZ(u0, 1);
const sums = [];
for (let iter = 1; iter <= niter; iter++) {
  // evolve: u0 ← u0 · twiddle (cumulative), u1 ← u0; then the inverse FFT of u1.
  for (let i = 0; i < count; i++) {
    u0[2 * i] = u0[2 * i] * twiddle[i];
    u0[2 * i + 1] = u0[2 * i + 1] * twiddle[i];
  }
  u1.set(u0);
  fftZ(u1, -1);
  await transposeBack(u1);
  fftXY(-1);
  const sum = await checksum();
  if (rank === 0) process.stdout.write(` T =${String(iter).padStart(5)}     Checksum =${sum[0].toExponential(12).padStart(22)}${sum[1].toExponential(12).padStart(22)}\n`);
  sums.push(sum);
}
const seconds = mpi.wtime() - start;

if (rank === 0) {
  const verified = sums.every(([re, im], i) => {
    const [refRe, refIm] = C.checksums[i];
    return Math.hypot(re - refRe, im - refIm) / Math.hypot(refRe, refIm) <= EPSILON;
  });
  process.stdout.write(` Result verification ${verified ? 'successful' : 'failed'}\n class = ${cls}\n`);
  const ln = Math.log(ntotal);
  const mops = (1e-6 * ntotal * (14.8157 + 7.19641 * ln + (5.23518 + 7.21113 * ln) * niter)) / seconds;
  printResults({ name: 'FT', cls, size: `${nx}x${ny}x${nz}`, iterations: niter, seconds, processes: size, mops, operation: 'floating point', verified, provider: mpi.provider, clock: timeMeasured(mpi) });
  if (!verified) await mpi.abort(1, `FT: checksums ${sums.map(([re, im]) => `${re} ${im}`).join(', ')} differ from NPB's`);
}
await mpi.finalize();
