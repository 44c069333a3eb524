import type { CartComm } from '../topo/cart-comm.js';
import type { DistGraphComm, GraphComm } from '../topo/graph-comm.js';
import type { Comm } from './comm.js';
import type { MpiState } from './mpi-state.js';

/**
 * The topology constructors (topo/create.ts), which `Comm` reaches through the library's state:
 * the topology communicators extend `Comm`, so `Comm` cannot import them. Arguments are checked there.
 */
export interface Topologies {
  cartCreate(comm: Comm, state: MpiState, dims: unknown, periods: unknown, reorder: unknown): Promise<CartComm | null>;
  graphCreate(comm: Comm, state: MpiState, index: unknown, edges: unknown, reorder: unknown): Promise<GraphComm | null>;
  distGraphCreateAdjacent(comm: Comm, state: MpiState, sources: unknown, destinations: unknown, options: unknown): Promise<DistGraphComm>;
}
