/**
 * `PMI_process_mapping`, the job attribute Slurm and MPICH's Hydra give (notes/multi-host.md):
 * `(vector,(start,nodes,ranksPerNode),…)` — each block puts `ranksPerNode` consecutive ranks on each
 * of `nodes` nodes numbered from `start`. When the blocks are used up before every rank has a node,
 * they are used again from the first (a cyclic mapping is written once), as MPICH reads it.
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';

/** The KVS key (PMI-1, as Hydra keeps it) and job attribute (PMI-2) of the process mapping. */
export const PROCESS_MAPPING_KEY = 'PMI_process_mapping';

/** One `(start,nodes,ranksPerNode)` block of `PMI_process_mapping`: `ranksPerNode` consecutive ranks on each of `nodes` nodes numbered from `start`. */
export interface ProcessMappingBlock {
  /** The first node of the block. */
  readonly start: number;
  /** How many nodes the block spans. */
  readonly nodes: number;
  /** Consecutive ranks placed on each node of the block. */
  readonly ranksPerNode: number;
}

const BLOCK = /^\((\d{1,9}),(\d{1,9}),(\d{1,9})\)$/;

/** The blocks of a mapping, or a DatError naming `PMI_process_mapping` and what is wrong. */
export function parseProcessMapping(text: string): ProcessMappingBlock[] {
  const compact = typeof text === 'string' ? text.replace(/\s+/g, '') : '';
  const bad = (why: string): DatError =>
    new DatError(DatStatus.INVALID_PARAMETER, `PMI_process_mapping ${JSON.stringify(String(text).slice(0, 120))} is not (vector,(start,nodes,ranksPerNode),…): ${why}`, { argument: 'PMI_process_mapping' });
  const match = /^\(vector,(.*)\)$/.exec(compact);
  if (match === null) throw bad('it does not start with "(vector," and end with ")"');
  const parts = match[1].match(/\([^()]*\)/g) ?? [];
  if (parts.join(',') !== match[1]) throw bad('blocks must be (a,b,c) separated by commas');
  const blocks = parts.map((part) => {
    const m = BLOCK.exec(part);
    if (m === null) throw bad(`block ${part} is not three whole numbers`);
    return { start: Number(m[1]), nodes: Number(m[2]), ranksPerNode: Number(m[3]) };
  });
  if (blocks.length === 0) throw bad('no blocks');
  if (blocks.every((b) => b.nodes * b.ranksPerNode === 0)) throw bad('every block places no rank');
  return blocks;
}

/** The node of each of `size` ranks under `blocks`. */
export function nodeOfEachRank(blocks: readonly ProcessMappingBlock[], size: number): number[] {
  if (!Number.isSafeInteger(size) || size < 1) throw new DatError(DatStatus.INVALID_PARAMETER, `size ${size} is not an integer >= 1`, { argument: 'size' });
  const nodes: number[] = [];
  while (nodes.length < size) {
    for (const block of blocks) {
      for (let n = 0; n < block.nodes && nodes.length < size; n++) {
        for (let r = 0; r < block.ranksPerNode && nodes.length < size; r++) nodes.push(block.start + n);
      }
    }
  }
  return nodes;
}

/** The ranks on `rank`'s node, ascending (always including `rank`). */
export function ranksSharingNode(nodes: readonly number[], rank: number): number[] {
  const node = nodes[rank];
  if (node === undefined) throw new DatError(DatStatus.INVALID_PARAMETER, `rank ${rank} is not in [0, ${nodes.length - 1}]`, { argument: 'rank' });
  const out: number[] = [];
  for (let r = 0; r < nodes.length; r++) if (nodes[r] === node) out.push(r);
  return out;
}

/** The ranks on `rank`'s node under the mapping `text` of a job of `size` ranks. */
export function localRanksFromMapping(text: string, size: number, rank: number): number[] {
  return ranksSharingNode(nodeOfEachRank(parseProcessMapping(text), size), rank);
}

/** A mapping for ranks placed in blocks of `counts[i]` consecutive ranks on node i (what `dapl run --hosts` publishes). */
export function formatProcessMapping(counts: readonly number[]): string {
  const blocks: string[] = [];
  let i = 0;
  while (i < counts.length) {
    let j = i + 1;
    while (j < counts.length && counts[j] === counts[i]) j++;
    blocks.push(`(${i},${j - i},${counts[i]})`);
    i = j;
  }
  return `(vector,${blocks.join(',')})`;
}
