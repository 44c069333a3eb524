import type { Comm } from '../api/comm.js';
import { UNDEFINED } from '../api/constants.js';
import type { MpiState } from '../api/mpi-state.js';
import type { Topologies } from '../api/topologies.js';
import { CartComm, gridSize, requireCartShape } from './cart-comm.js';
import { DistGraphComm, GraphComm, requireDistGraphShape, requireGraphShape, type DistGraphOptions } from './graph-comm.js';
import { requireOptions } from '../api/check.js';

/**
 * The topology constructors behind `comm.cartCreate`, `graphCreate` and `distGraphCreateAdjacent`
 * (handed to the library's state, so that `Comm` need not import its own subclasses). Ranks are
 * never reordered (MPI allows it): the first processes of `comm` form the grid or graph, in order,
 * on a context of their own; the rest get null.
 */
export const TOPOLOGIES: Topologies = {
  async cartCreate(comm: Comm, state: MpiState, dims: unknown, periods: unknown, reorder: unknown): Promise<CartComm | null> {
    const shape = requireCartShape(dims, periods, reorder, comm.size);
    const part = await comm.split(comm.rank < gridSize(shape) ? 0 : UNDEFINED, comm.rank);
    return part === null ? null : new CartComm(state, part.group, part.context, `${comm.name}.cart`, shape);
  },

  async graphCreate(comm: Comm, state: MpiState, index: unknown, edges: unknown, reorder: unknown): Promise<GraphComm | null> {
    const shape = requireGraphShape(index, edges, reorder, comm.size);
    const part = await comm.split(comm.rank < shape.index.length ? 0 : UNDEFINED, comm.rank);
    return part === null ? null : new GraphComm(state, part.group, part.context, `${comm.name}.graph`, shape);
  },

  async distGraphCreateAdjacent(comm: Comm, state: MpiState, sources: unknown, destinations: unknown, options: unknown): Promise<DistGraphComm> {
    const shape = requireDistGraphShape(sources, destinations, requireOptions<DistGraphOptions>(options, 'options', ['sourceWeights', 'destWeights', 'reorder'], 'distGraphCreateAdjacent'), comm.size);
    const twin = await comm.dup();
    return new DistGraphComm(state, twin.group, twin.context, `${comm.name}.distGraph`, shape);
  },
};
