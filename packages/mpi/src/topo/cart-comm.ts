import { PROC_NULL } from '../api/constants.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import type { Group } from '../api/group.js';
import type { MpiState } from '../api/mpi-state.js';
import { NEIGHBOR_TAG, type Neighborhood } from './neighbor-collectives.js';
import { TopoComm, type TopologyKind } from './topo-comm.js';

/** A Cartesian grid: its extent and wrap-around in each dimension. */
export interface CartShape {
  readonly dims: readonly number[];
  readonly periods: readonly boolean[];
}

/**
 * A communicator on a Cartesian grid (MPI_Cart_create): ranks in row-major order of their
 * coordinates (the last dimension varies fastest), neighbours one step either way in each
 * dimension, PROC_NULL past an open (non-periodic) edge.
 */
export class CartComm extends TopoComm {
  readonly #shape: CartShape;
  #hood: Neighborhood | undefined;

  /** @internal */
  constructor(state: MpiState, group: Group, context: number, name: string, shape: CartShape) {
    super(state, group, context, name);
    this.#shape = { dims: Object.freeze([...shape.dims]), periods: Object.freeze([...shape.periods]) };
  }

  get topology(): TopologyKind {
    return 'cart';
  }

  /** Number of dimensions (MPI_Cartdim_get). */
  get ndims(): number {
    return this.#shape.dims.length;
  }

  get dims(): readonly number[] {
    return this.#shape.dims;
  }

  get periods(): readonly boolean[] {
    return this.#shape.periods;
  }

  /** The grid and this process's place in it (MPI_Cart_get). */
  cartGet(): { dims: number[]; periods: boolean[]; coords: number[] } {
    return { dims: [...this.#shape.dims], periods: [...this.#shape.periods], coords: this.coords(this.rank) };
  }

  /** Coordinates of `rank` (MPI_Cart_coords). */
  coords(rank: number): number[] {
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= this.size) {
      throw new MpiError(ErrorClass.ERR_RANK, `rank must be an integer in [0, ${this.size - 1}], got ${describeValue(rank)}`, { argument: 'rank' });
    }
    const { dims } = this.#shape;
    const out = new Array<number>(dims.length);
    let left = rank;
    for (let d = dims.length - 1; d >= 0; d--) {
      out[d] = left % dims[d];
      left = Math.floor(left / dims[d]);
    }
    return out;
  }

  /**
   * The rank at `coords` (MPI_Cart_rank). A coordinate outside a periodic dimension wraps; outside
   * an open one it is ERR_ARG.
   */
  rankOf(coords: readonly number[]): number {
    const { dims, periods } = this.#shape;
    if (!Array.isArray(coords) || coords.length !== dims.length) {
      throw new MpiError(ErrorClass.ERR_ARG, `coords must be an array of ${dims.length} integers, got ${describeValue(coords)}`, { argument: 'coords' });
    }
    let rank = 0;
    coords.forEach((c: unknown, d) => {
      if (typeof c !== 'number' || !Number.isSafeInteger(c)) throw new MpiError(ErrorClass.ERR_ARG, `coords[${d}] must be an integer, got ${describeValue(c)}`, { argument: `coords[${d}]` });
      const at = periods[d] ? (((c % dims[d]) + dims[d]) % dims[d]) : c;
      if (at < 0 || at >= dims[d]) {
        throw new MpiError(ErrorClass.ERR_ARG, `coords[${d}] must be in [0, ${dims[d] - 1}] (dimension ${d} is not periodic), got ${c}`, { argument: `coords[${d}]` });
      }
      rank = rank * dims[d] + at;
    });
    return rank;
  }

  /**
   * The ranks `disp` steps down and up dimension `direction` from this process (MPI_Cart_shift):
   * `source` is where data shifted by `disp` comes from, `dest` where this process's goes; PROC_NULL
   * past an open edge. `disp` may be negative or 0.
   */
  shift(direction: number, disp: number): { source: number; dest: number } {
    const n = this.ndims;
    if (typeof direction !== 'number' || !Number.isInteger(direction) || direction < 0 || direction >= n) {
      throw new MpiError(ErrorClass.ERR_DIMS, n === 0 ? 'direction: a 0-dimensional grid has no dimension to shift along' : `direction must be a dimension in [0, ${n - 1}], got ${describeValue(direction)}`, { argument: 'direction' });
    }
    if (typeof disp !== 'number' || !Number.isSafeInteger(disp)) throw new MpiError(ErrorClass.ERR_ARG, `disp must be an integer, got ${describeValue(disp)}`, { argument: 'disp' });
    return { source: this.#step(direction, -disp), dest: this.#step(direction, disp) };
  }

  /** The rank `by` steps along `direction`, or PROC_NULL past an open edge. */
  #step(direction: number, by: number): number {
    const here = this.coords(this.rank);
    const { dims, periods } = this.#shape;
    const at = here[direction] + by;
    if (!periods[direction] && (at < 0 || at >= dims[direction])) return PROC_NULL;
    here[direction] = at;
    return this.rankOf(here);
  }

  /**
   * The sub-grids that keep the dimensions where `remainDims` is true (MPI_Cart_sub): one
   * communicator per combination of the dropped coordinates. Collective. Dropping every dimension
   * leaves a 0-dimensional grid of this process alone.
   */
  async sub(remainDims: readonly boolean[]): Promise<CartComm> {
    const { dims, periods } = this.#shape;
    if (!Array.isArray(remainDims) || remainDims.length !== dims.length || !remainDims.every((v) => typeof v === 'boolean')) {
      throw new MpiError(ErrorClass.ERR_ARG, `remainDims must be an array of ${dims.length} booleans, got ${describeValue(remainDims)}`, { argument: 'remainDims' });
    }
    const here = this.coords(this.rank);
    let color = 0;
    let key = 0;
    for (let d = 0; d < dims.length; d++) {
      if (remainDims[d]) key = key * dims[d] + here[d];
      else color = color * dims[d] + here[d];
    }
    const part = await this.split(color, key);
    const kept = dims.map((_, d) => d).filter((d) => remainDims[d]);
    return new CartComm(this.mpiState, part!.group, part!.context, `${this.name}.sub`, { dims: kept.map((d) => dims[d]), periods: kept.map((d) => periods[d]) });
  }

  protected get neighborhood(): Neighborhood {
    if (this.#hood !== undefined) return this.#hood;
    const around: number[] = [];
    for (let d = 0; d < this.ndims; d++) {
      const { source, dest } = this.shift(d, 1);
      around.push(source, dest);
    }
    // Slot 2d is the neighbour below in dimension d, 2d + 1 the one above: what a process sends
    // up arrives in its upper neighbour's lower slot, so a receive in slot k takes the sender's slot k ^ 1.
    this.#hood = { sources: around, destinations: around, sendTag: (k) => NEIGHBOR_TAG + k, recvTag: (k) => NEIGHBOR_TAG + (k ^ 1) };
    return this.#hood;
  }

  protected withContext(group: Group, context: number, name: string): CartComm {
    return new CartComm(this.mpiState, group, context, name, this.#shape);
  }
}

/** Checks `cartCreate`'s arguments against a communicator of `size`: the grid's shape. */
export function requireCartShape(dims: unknown, periods: unknown, reorder: unknown, size: number): CartShape {
  if (!Array.isArray(dims)) throw new MpiError(ErrorClass.ERR_DIMS, `dims must be an array of positive integers, got ${describeValue(dims)}`, { argument: 'dims' });
  let product = 1;
  dims.forEach((d: unknown, i) => {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1) throw new MpiError(ErrorClass.ERR_DIMS, `dims[${i}] must be a positive integer, got ${describeValue(d)}`, { argument: `dims[${i}]` });
    product *= d;
  });
  if (product > size) throw new MpiError(ErrorClass.ERR_ARG, `dims ${JSON.stringify(dims)} make a grid of ${product} processes; the communicator has ${size}`, { argument: 'dims' });
  if (!Array.isArray(periods) || periods.length !== dims.length || !periods.every((p) => typeof p === 'boolean')) {
    throw new MpiError(ErrorClass.ERR_ARG, `periods must be an array of ${dims.length} booleans (one per dimension), got ${describeValue(periods)}`, { argument: 'periods' });
  }
  if (typeof reorder !== 'boolean') throw new MpiError(ErrorClass.ERR_ARG, `reorder must be a boolean, got ${describeValue(reorder)}`, { argument: 'reorder' });
  return { dims: dims as number[], periods: periods as boolean[] };
}

/** The grid's size (1 for 0 dimensions). */
export function gridSize(shape: CartShape): number {
  return shape.dims.reduce((a, b) => a * b, 1);
}
