import { ErrorClass, MpiError, describeValue } from '../api/errors.js';

/**
 * A balanced grid of `n` processes (MPI_Dims_create): the entries of `dims` that are 0 are filled
 * with factors as close to each other as possible, in non-increasing order; the others stay. An
 * ERR_DIMS when an entry is negative or the fixed entries' product does not divide `n`. Returns a
 * new array (`dims` is not changed).
 */
export function dimsCreate(n: number, dims: readonly number[]): number[] {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new MpiError(ErrorClass.ERR_ARG, `n must be a positive integer (the number of processes), got ${describeValue(n)}`, { argument: 'n' });
  if (!Array.isArray(dims)) throw new MpiError(ErrorClass.ERR_DIMS, `dims must be an array of non-negative integers (0: free), got ${describeValue(dims)}`, { argument: 'dims' });
  let fixed = 1;
  let free = 0;
  dims.forEach((d: unknown, i) => {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) throw new MpiError(ErrorClass.ERR_DIMS, `dims[${i}] must be a non-negative integer (0: free), got ${describeValue(d)}`, { argument: `dims[${i}]` });
    if (d === 0) free++;
    else fixed *= d;
  });
  if (n % fixed !== 0 || (free === 0 && fixed !== n)) {
    throw new MpiError(ErrorClass.ERR_DIMS, `the fixed entries of dims multiply to ${fixed}, which ${free === 0 ? 'is not' : 'does not divide'} n = ${n}`, { argument: 'dims' });
  }
  const factors = balancedFactors(n / fixed, free);
  let k = 0;
  return dims.map((d) => (d === 0 ? factors[k++] : d));
}

/** `m` as a product of `k` factors, non-increasing, the largest as small as it can be (then the next …). */
function balancedFactors(m: number, k: number): number[] {
  if (k === 0) return [];
  let best: number[] | undefined;
  const current: number[] = [];
  const divisors = divisorsOf(m);
  // Depth-first over non-increasing factorisations, largest factor first as small as possible:
  // the first one found with the smallest leading factor that still completes is the most balanced.
  const search = (left: number, slots: number, cap: number): boolean => {
    if (slots === 1) {
      if (left > cap) return false;
      best = [...current, left];
      return true;
    }
    // The largest factor of what is left must be at least its slots-th root.
    const low = Math.ceil(Math.pow(left, 1 / slots) - 1e-9);
    for (const f of divisors) {
      if (f < low || left % f !== 0) continue;
      if (f > cap || f > left) break;
      current.push(f);
      const found = search(left / f, slots - 1, f);
      current.pop();
      if (found) return true;
    }
    return false;
  };
  search(m, k, m);
  return best!;
}

/** The divisors of `m`, ascending (trial division to √m: at most 46,341 steps for an int32). */
function divisorsOf(m: number): number[] {
  const low: number[] = [];
  const high: number[] = [];
  for (let d = 1; d * d <= m; d++) {
    if (m % d !== 0) continue;
    low.push(d);
    if (d * d !== m) high.push(m / d);
  }
  return [...low, ...high.reverse()];
}
