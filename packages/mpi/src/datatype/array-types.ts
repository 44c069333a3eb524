import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { Datatype } from './datatype.js';

/** Storage order of a multidimensional array: 'C' (row-major, last index fastest) or 'F' (Fortran, first index fastest). */
export type ArrayOrder = 'C' | 'F';
/** How `createDarray` spreads a dimension over the process grid (MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE). */
export type Distribution = 'block' | 'cyclic' | 'none';

/** `createDarray`'s darg for "the default block size" (MPI_DISTRIBUTE_DFLT_DARG, MPICH's value). */
export const DISTRIBUTE_DFLT_DARG = -49767;
/** How `getContents` encodes an order and a distribution among its integers (MPICH's values of MPI_ORDER_C …). */
export const ORDER_CODES: Readonly<Record<ArrayOrder, number>> = { C: 56, F: 57 };
/** How `getContents` encodes a distribution (MPICH's values of MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE). */
export const DISTRIBUTION_CODES: Readonly<Record<Distribution, number>> = { block: 121, cyclic: 122, none: 123 };

/** Index runs [start, length) a process owns in each dimension. */
type Runs = readonly (readonly [number, number])[];

/**
 * The type of the elements `runs` select in an array of `sizes` elements of `old`, laid out in
 * `order`: lower bound 0 and the whole array's extent, so that consecutive elements of it are
 * consecutive arrays. Built from the fastest dimension out, each level an hindexed of the runs
 * resized to one whole row of its dimension.
 */
function gridType(runs: readonly Runs[], sizes: readonly number[], order: ArrayOrder, old: Datatype): Datatype {
  const n = sizes.length;
  let type = old;
  let stride = old.extent;
  for (let k = 0; k < n; k++) {
    const d = order === 'C' ? n - 1 - k : k;
    const levelRuns = runs[d];
    const block = Datatype.hindexed(
      levelRuns.map(([, length]) => length),
      levelRuns.map(([start]) => start * stride),
      type,
    );
    type = Datatype.resized(block, 0, sizes[d] * stride);
    stride *= sizes[d];
  }
  return type;
}

/** MPI_Type_create_subarray's layout, its arguments checked (ERR_ARG naming the one at fault). */
export function subarrayLayout(sizes: unknown, subsizes: unknown, starts: unknown, order: unknown, old: Datatype): Datatype {
  const s = intList(sizes, 'sizes', undefined, 1);
  if (s.length === 0) throw new MpiError(ErrorClass.ERR_ARG, 'sizes must name at least one dimension', { argument: 'sizes' });
  const sub = intList(subsizes, 'subsizes', s.length, 0);
  const st = intList(starts, 'starts', s.length, 0);
  s.forEach((size, d) => {
    if (sub[d] > size) throw new MpiError(ErrorClass.ERR_ARG, `subsizes[${d}] must be at most sizes[${d}] = ${size}, got ${sub[d]}`, { argument: `subsizes[${d}]` });
    if (st[d] + sub[d] > size) throw new MpiError(ErrorClass.ERR_ARG, `starts[${d}] must be in [0, ${size - sub[d]}] (the subarray must fit), got ${st[d]}`, { argument: `starts[${d}]` });
  });
  return gridType(
    s.map((_, d) => [[st[d], sub[d]]] as const),
    s,
    requireOrder(order),
    old,
  );
}

/** MPI_Type_create_darray's layout: the part of the global array this process (`rank` of `size`, on a row-major grid of `psizes`) owns. */
export function darrayLayout(size: unknown, rank: unknown, gsizes: unknown, distribs: unknown, dargs: unknown, psizes: unknown, order: unknown, old: Datatype): Datatype {
  const n = requireInt(size, 'size', 1);
  const r = requireInt(rank, 'rank', 0);
  if (r >= n) throw new MpiError(ErrorClass.ERR_RANK, `rank must be in [0, ${n - 1}], got ${r}`, { argument: 'rank' });
  const g = intList(gsizes, 'gsizes', undefined, 1);
  if (g.length === 0) throw new MpiError(ErrorClass.ERR_ARG, 'gsizes must name at least one dimension', { argument: 'gsizes' });
  const p = intList(psizes, 'psizes', g.length, 1);
  if (p.reduce((a, b) => a * b, 1) !== n) throw new MpiError(ErrorClass.ERR_ARG, `psizes ${JSON.stringify(p)} must multiply to size = ${n}`, { argument: 'psizes' });
  if (!Array.isArray(distribs) || distribs.length !== g.length) throw new MpiError(ErrorClass.ERR_ARG, `distribs must be an array of ${g.length} of 'block', 'cyclic' or 'none', got ${describeValue(distribs)}`, { argument: 'distribs' });
  if (!Array.isArray(dargs) || dargs.length !== g.length) throw new MpiError(ErrorClass.ERR_ARG, `dargs must be an array of ${g.length} block sizes (or DISTRIBUTE_DFLT_DARG), got ${describeValue(dargs)}`, { argument: 'dargs' });
  // This process's place in the grid: row-major, whatever the array's order (MPI-3.1 §4.1.4).
  const coords = new Array<number>(g.length);
  let left = r;
  for (let d = g.length - 1; d >= 0; d--) {
    coords[d] = left % p[d];
    left = Math.floor(left / p[d]);
  }
  const runs = g.map((global, d): Runs => {
    const how = distribs[d] as unknown;
    const darg = dargs[d] as unknown;
    const at = `dargs[${d}]`;
    if (darg !== DISTRIBUTE_DFLT_DARG && (typeof darg !== 'number' || !Number.isSafeInteger(darg) || darg < 1)) {
      throw new MpiError(ErrorClass.ERR_ARG, `${at} must be a positive block size or DISTRIBUTE_DFLT_DARG, got ${describeValue(darg)}`, { argument: at });
    }
    if (how === 'none') {
      if (p[d] !== 1) throw new MpiError(ErrorClass.ERR_ARG, `psizes[${d}] must be 1 for a dimension distributed 'none', got ${p[d]}`, { argument: `psizes[${d}]` });
      return [[0, global]];
    }
    if (how === 'block') {
      const b = darg === DISTRIBUTE_DFLT_DARG ? Math.ceil(global / p[d]) : (darg as number);
      if (b * p[d] < global) throw new MpiError(ErrorClass.ERR_ARG, `${at}: blocks of ${b} on ${p[d]} processes cover ${b * p[d]} of the ${global} elements of dimension ${d}`, { argument: at });
      const start = Math.min(coords[d] * b, global);
      return [[start, Math.max(0, Math.min(b, global - start))]];
    }
    if (how === 'cyclic') {
      const b = darg === DISTRIBUTE_DFLT_DARG ? 1 : (darg as number);
      const out: [number, number][] = [];
      for (let start = coords[d] * b; start < global; start += p[d] * b) out.push([start, Math.min(b, global - start)]);
      return out;
    }
    throw new MpiError(ErrorClass.ERR_ARG, `distribs[${d}] must be 'block', 'cyclic' or 'none', got ${describeValue(how)}`, { argument: `distribs[${d}]` });
  });
  return gridType(runs, g, requireOrder(order), old);
}

export function requireOrder(order: unknown): ArrayOrder {
  if (order !== 'C' && order !== 'F') throw new MpiError(ErrorClass.ERR_ARG, `order must be 'C' (row-major) or 'F' (Fortran, column-major), got ${describeValue(order)}`, { argument: 'order' });
  return order;
}

function requireInt(value: unknown, argument: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an integer ≥ ${min}, got ${describeValue(value)}`, { argument });
  return value;
}

function intList(list: unknown, argument: string, length: number | undefined, min: number): number[] {
  if (!Array.isArray(list) || (length !== undefined && list.length !== length)) {
    throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ${length ?? 'one per dimension'} integers ≥ ${min}, got ${describeValue(list)}`, { argument });
  }
  return list.map((v, d) => requireInt(v, `${argument}[${d}]`, min));
}
