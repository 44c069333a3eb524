import type { Crossbar2D, HwGroup } from '@dapl/core';

/**
 * The node set of `group` sorted, when it is a full rectangle of the crossbar grid (contiguous
 * columns × contiguous rows, 001:197 condition 4; 001:213: the barrier too) of nodes below `maxNodes`; else undefined.
 * Hypercube-shaped sets (also allowed by 001:197) are not recognised: on a 2-D crossbar grid the
 * seed's own usable partitions (2–8 nodes in a row, 16 as 8×2, 001:303) are all rectangles.
 */
export function rectangularNodes(crossbar: Crossbar2D, maxNodes: number, group: HwGroup): number[] | undefined {
  if (!Array.isArray(group) || group.length === 0) return undefined;
  const nodes = new Set<number>();
  let minX = Infinity;
  let maxX = -1;
  let minY = Infinity;
  let maxY = -1;
  for (const node of group as readonly unknown[]) {
    if (typeof node !== 'number' || !Number.isSafeInteger(node) || node < 0 || node >= maxNodes || node >= crossbar.nodes || nodes.has(node)) return undefined;
    nodes.add(node);
    const { x, y } = crossbar.coordinates(node);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  // Distinct nodes inside their bounding box fill it exactly when there are as many as it holds.
  if (nodes.size !== (maxX - minX + 1) * (maxY - minY + 1)) return undefined;
  return [...nodes].sort((a, b) => a - b);
}
