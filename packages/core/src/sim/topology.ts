import { requireInteger } from '../provider-kit/validate.js';

/** How many switch hops a message from node `src` to node `dst` crosses (0 for a node to itself). */
export type Topology = (src: number, dst: number) => number;

/** Every pair of nodes one hop apart, through one switch (a node to itself: 0 hops). */
export const flatTopology: Topology = (src, dst) => (src === dst ? 0 : 1);

/**
 * Nodes on an X×Y grid joined by a crossbar along each row and each column (the SR8000's
 * multidimensional crossbar): node n sits at (n mod X, floor(n / X)); a message within a row or
 * a column crosses one crossbar, any other two.
 */
export class Crossbar2D {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {
    requireInteger(x, 'x', 1, 1 << 24);
    requireInteger(y, 'y', 1, 1 << 24);
  }

  get nodes(): number {
    return this.x * this.y;
  }

  /**
   * The crossbar coordinates of `node`: `x` along a row, `y` the row.
   * @throws DatError INVALID_PARAMETER for a node outside the grid.
   */
  coordinates(node: number): { readonly x: number; readonly y: number } {
    requireInteger(node, 'node', 0, this.nodes - 1);
    return { x: node % this.x, y: Math.floor(node / this.x) };
  }

  /** The `Topology` hook: 0 to itself, 1 within a row or column, else 2. */
  readonly hops: Topology = (src, dst) => {
    if (src === dst) return 0;
    const sameColumn = src % this.x === dst % this.x;
    const sameRow = Math.floor(src / this.x) === Math.floor(dst / this.x);
    return sameRow || sameColumn ? 1 : 2;
  };
}

/** A hypercube of 2^dimensions nodes: hops = the number of bits in which the two node numbers differ. */
export class Hypercube {
  constructor(readonly dimensions: number) {
    requireInteger(dimensions, 'dimensions', 0, 30);
  }

  get nodes(): number {
    return 2 ** this.dimensions;
  }

  readonly hops: Topology = (src, dst) => popCount(src ^ dst);
}

function popCount(v: number): number {
  let n = v >>> 0;
  n = n - ((n >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
