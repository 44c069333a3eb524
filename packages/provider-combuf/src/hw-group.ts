import type { Crossbar2D, HwGroup } from '@dapl/core';

/**
 * The node set of `group` sorted, when the hardware barrier and broadcast can serve it (Tatebe et al. §3.2
 * condition 4: the nodes "shape a rectangle or a hypercube"; Tatebe et al. §3.3: the barrier too), else
 * undefined. The nodes must be distinct, below `maxNodes`, and form a full product X × Y of crossbar
 * coordinates that is either
 * - a rectangle: contiguous columns × contiguous rows (the paper's own partitions: 2–8 nodes in a row,
 *   16 as 8×2, Tatebe et al. §5.2), or
 * - a binary hypercube: at most two columns × at most two rows, anywhere on the grid (the crossbar
 *   is "a smooth extension of a multidimensional binary hypercube network", Tatebe et al. §3, so a 1- or
 *   2-cube need not be adjacent nodes).
 */
export function hardwareNodes(crossbar: Crossbar2D, maxNodes: number, group: HwGroup): number[] | undefined {
  if (!Array.isArray(group) || group.length === 0) return undefined;
  const nodes = new Set<number>();
  const xs = new Set<number>();
  const ys = new Set<number>();
  for (const node of group as readonly unknown[]) {
    if (typeof node !== 'number' || !Number.isSafeInteger(node) || node < 0 || node >= maxNodes || node >= crossbar.nodes || nodes.has(node)) return undefined;
    nodes.add(node);
    const { x, y } = crossbar.coordinates(node);
    xs.add(x);
    ys.add(y);
  }
  // Distinct nodes inside X × Y fill it exactly when there are as many as it holds.
  if (nodes.size !== xs.size * ys.size) return undefined;
  const hypercube = xs.size <= 2 && ys.size <= 2;
  if (!hypercube && !(contiguous(xs) && contiguous(ys))) return undefined;
  return [...nodes].sort((a, b) => a - b);
}

function contiguous(values: ReadonlySet<number>): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  return max - min + 1 === values.size;
}
