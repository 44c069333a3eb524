import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import type { Group } from '../api/group.js';
import type { MpiState } from '../api/mpi-state.js';
import { NEIGHBOR_TAG, type Neighborhood } from './neighbor-collectives.js';
import { TopoComm, type TopologyKind } from './topo-comm.js';

/** A graph in MPI_Graph_create's form: node i's neighbours are `edges[index[i-1] .. index[i])`. */
export interface GraphShape {
  readonly index: readonly number[];
  readonly edges: readonly number[];
}

/** Every edge's messages pair in order: the m-th message to a peer is its m-th receive from this process. */
const inOrder = (): number => NEIGHBOR_TAG;

/** A communicator with a graph topology (MPI_Graph_create): node i is rank i. */
export class GraphComm extends TopoComm {
  readonly #shape: GraphShape;
  #hood: Neighborhood | undefined;

  /** @internal */
  constructor(state: MpiState, group: Group, context: number, name: string, shape: GraphShape) {
    super(state, group, context, name);
    this.#shape = { index: Object.freeze([...shape.index]), edges: Object.freeze([...shape.edges]) };
  }

  get topology(): TopologyKind {
    return 'graph';
  }

  /** Nodes and edges (MPI_Graphdims_get). */
  graphdimsGet(): { nnodes: number; nedges: number } {
    return { nnodes: this.#shape.index.length, nedges: this.#shape.edges.length };
  }

  /** The graph as given (MPI_Graph_get). */
  graphGet(): { index: number[]; edges: number[] } {
    return { index: [...this.#shape.index], edges: [...this.#shape.edges] };
  }

  /** The neighbours of `rank`, in order (MPI_Graph_neighbors). */
  neighbors(rank: number): number[] {
    const { index, edges } = this.#shape;
    const r = this.#requireRank(rank);
    return edges.slice(r === 0 ? 0 : index[r - 1], index[r]);
  }

  /** How many neighbours `rank` has (MPI_Graph_neighbors_count). */
  neighborsCount(rank: number): number {
    return this.neighbors(rank).length;
  }

  #requireRank(rank: unknown): number {
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= this.size) {
      throw new MpiError(ErrorClass.ERR_RANK, `rank must be an integer in [0, ${this.size - 1}], got ${describeValue(rank)}`, { argument: 'rank' });
    }
    return rank;
  }

  protected get neighborhood(): Neighborhood {
    const around = this.neighbors(this.rank);
    return (this.#hood ??= { sources: around, destinations: around, sendTag: inOrder, recvTag: inOrder });
  }

  protected withContext(group: Group, context: number, name: string): GraphComm {
    return new GraphComm(this.mpiState, group, context, name, this.#shape);
  }
}

/** One process's edges of a distributed graph, with their weights (undefined: unweighted). */
export interface DistGraphShape {
  readonly sources: readonly number[];
  readonly sourceWeights: readonly number[] | undefined;
  readonly destinations: readonly number[];
  readonly destWeights: readonly number[] | undefined;
}

/** A communicator with a distributed graph topology (MPI_Dist_graph_create_adjacent): each process names its own in- and out-neighbours. */
export class DistGraphComm extends TopoComm {
  readonly #shape: DistGraphShape;
  readonly #hood: Neighborhood;

  /** @internal */
  constructor(state: MpiState, group: Group, context: number, name: string, shape: DistGraphShape) {
    super(state, group, context, name);
    this.#shape = shape;
    this.#hood = { sources: shape.sources, destinations: shape.destinations, sendTag: inOrder, recvTag: inOrder };
  }

  get topology(): TopologyKind {
    return 'distGraph';
  }

  /** In- and out-degree, and whether weights were given (MPI_Dist_graph_neighbors_count). */
  distGraphNeighborsCount(): { indegree: number; outdegree: number; weighted: boolean } {
    const s = this.#shape;
    return { indegree: s.sources.length, outdegree: s.destinations.length, weighted: s.sourceWeights !== undefined || s.destWeights !== undefined };
  }

  /** The neighbours and weights as given (MPI_Dist_graph_neighbors). */
  distGraphNeighbors(): { sources: number[]; sourceWeights: number[] | undefined; destinations: number[]; destWeights: number[] | undefined } {
    const s = this.#shape;
    return { sources: [...s.sources], sourceWeights: s.sourceWeights && [...s.sourceWeights], destinations: [...s.destinations], destWeights: s.destWeights && [...s.destWeights] };
  }

  protected get neighborhood(): Neighborhood {
    return this.#hood;
  }

  protected withContext(group: Group, context: number, name: string): DistGraphComm {
    return new DistGraphComm(this.mpiState, group, context, name, this.#shape);
  }
}

/** Checks `graphCreate`'s arguments against a communicator of `size`. */
export function requireGraphShape(index: unknown, edges: unknown, reorder: unknown, size: number): GraphShape {
  if (!Array.isArray(index)) throw new MpiError(ErrorClass.ERR_ARG, `index must be an array (node i's edges end at index[i]), got ${describeValue(index)}`, { argument: 'index' });
  if (index.length > size) throw new MpiError(ErrorClass.ERR_ARG, `index describes ${index.length} nodes; the communicator has ${size} processes`, { argument: 'index' });
  if (!Array.isArray(edges)) throw new MpiError(ErrorClass.ERR_ARG, `edges must be an array of node numbers, got ${describeValue(edges)}`, { argument: 'edges' });
  let previous = 0;
  index.forEach((v: unknown, i) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < previous || v > edges.length) {
      throw new MpiError(ErrorClass.ERR_ARG, `index[${i}] must be an integer in [${previous}, ${edges.length}] (non-decreasing, at most edges.length), got ${describeValue(v)}`, { argument: `index[${i}]` });
    }
    previous = v;
  });
  if (previous !== edges.length) throw new MpiError(ErrorClass.ERR_ARG, `index's last entry must be edges.length (${edges.length}), got ${previous}`, { argument: 'index' });
  edges.forEach((e: unknown, i) => {
    if (typeof e !== 'number' || !Number.isInteger(e) || e < 0 || e >= index.length) {
      throw new MpiError(ErrorClass.ERR_RANK, `edges[${i}] must be a node in [0, ${index.length - 1}], got ${describeValue(e)}`, { argument: `edges[${i}]` });
    }
  });
  if (typeof reorder !== 'boolean') throw new MpiError(ErrorClass.ERR_ARG, `reorder must be a boolean, got ${describeValue(reorder)}`, { argument: 'reorder' });
  return { index: index as number[], edges: edges as number[] };
}

/** Options of `distGraphCreateAdjacent`. */
export interface DistGraphOptions {
  /** One non-negative weight per source; omitted: unweighted (MPI_UNWEIGHTED). */
  readonly sourceWeights?: readonly number[];
  readonly destWeights?: readonly number[];
  /** Whether ranks may be renumbered (they are not: allowed by MPI). */
  readonly reorder?: boolean;
}

/** Checks `distGraphCreateAdjacent`'s arguments against a communicator of `size`. */
export function requireDistGraphShape(sources: unknown, destinations: unknown, options: DistGraphOptions, size: number): DistGraphShape {
  const s = requireRanks(sources, size, 'sources');
  const d = requireRanks(destinations, size, 'destinations');
  const sw = requireWeights(options.sourceWeights, s.length, 'options.sourceWeights');
  const dw = requireWeights(options.destWeights, d.length, 'options.destWeights');
  if (options.reorder !== undefined && typeof options.reorder !== 'boolean') throw new MpiError(ErrorClass.ERR_ARG, `options.reorder must be a boolean, got ${describeValue(options.reorder)}`, { argument: 'options.reorder' });
  return { sources: Object.freeze(s), sourceWeights: sw, destinations: Object.freeze(d), destWeights: dw };
}

function requireRanks(list: unknown, size: number, argument: string): number[] {
  if (!Array.isArray(list)) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ranks, got ${describeValue(list)}`, { argument });
  return list.map((r: unknown, i) => {
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r >= size) throw new MpiError(ErrorClass.ERR_RANK, `${argument}[${i}] must be a rank in [0, ${size - 1}], got ${describeValue(r)}`, { argument: `${argument}[${i}]` });
    return r;
  });
}

function requireWeights(list: unknown, n: number, argument: string): number[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length !== n || !list.every((w) => typeof w === 'number' && Number.isInteger(w) && w >= 0)) {
    throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ${n} non-negative integers (one per neighbour), got ${describeValue(list)}`, { argument });
  }
  return Object.freeze([...list]) as number[];
}
