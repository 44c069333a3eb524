import { Comm } from '../api/comm.js';
import { ErrorClass, MpiError } from '../api/errors.js';
import type { Group } from '../api/group.js';
import type { MpiState } from '../api/mpi-state.js';
import { CollChannel } from '../coll/channel.js';
import * as neighbor from './neighbor-collectives.js';
import type { Neighborhood, NeighborOptions } from './neighbor-collectives.js';

/** What `comm.topology` says (MPI_Topo_test: MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH). */
export type TopologyKind = 'cart' | 'graph' | 'distGraph';

/**
 * A communicator with a virtual topology (MPI-3.1 ch. 7): a `Comm` whose processes know their
 * neighbours, and the neighbour collectives over them. Subclasses say who the neighbours are.
 */
export abstract class TopoComm extends Comm {
  /** @internal The library state the subclasses build new communicators with. */
  protected readonly mpiState: MpiState;
  #channel: CollChannel | undefined;

  /** @internal Made by `cartCreate`, `graphCreate`, `distGraphCreateAdjacent` and `sub`. */
  constructor(state: MpiState, group: Group, context: number, name: string) {
    super(state, group, context, name);
    this.mpiState = state;
  }

  abstract get topology(): TopologyKind;

  /** @internal Who this process exchanges with, in buffer order. */
  protected abstract get neighborhood(): Neighborhood;

  /** @internal The same topology on `group` with a new context (what `dup` makes). */
  protected abstract withContext(group: Group, context: number, name: string): TopoComm;

  /** A new communicator with the same group and topology (MPI_Comm_dup). Collective. */
  override async dup(): Promise<TopoComm> {
    const twin = await super.dup();
    return this.withContext(twin.group, twin.context, twin.name);
  }

  /** Every out-neighbour gets `sendbuf`; in-neighbour k's block lands at block k of `recvbuf` (MPI_Neighbor_allgather). */
  neighborAllgather(sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, options?: NeighborOptions): Promise<void> {
    return this.#run('neighborAllgather', (ch) => neighbor.allgather(ch, this.neighborhood, sendbuf, recvbuf, options));
  }

  /** As neighborAllgather with per-neighbour counts and displacements in elements (MPI_Neighbor_allgatherv). */
  neighborAllgatherv(sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, recvCounts: readonly number[], displs: readonly number[] | null, options?: NeighborOptions): Promise<void> {
    return this.#run('neighborAllgatherv', (ch) => neighbor.allgatherv(ch, this.neighborhood, sendbuf, recvbuf, recvCounts, displs, options));
  }

  /** Block k of `sendbuf` to out-neighbour k, block k of `recvbuf` from in-neighbour k (MPI_Neighbor_alltoall). */
  neighborAlltoall(sendbuf: ArrayBufferView, recvbuf: ArrayBufferView, options?: NeighborOptions): Promise<void> {
    return this.#run('neighborAlltoall', (ch) => neighbor.alltoall(ch, this.neighborhood, sendbuf, recvbuf, options));
  }

  /** As neighborAlltoall with per-neighbour counts and displacements on both sides (MPI_Neighbor_alltoallv). */
  neighborAlltoallv(
    sendbuf: ArrayBufferView,
    sendCounts: readonly number[],
    sdispls: readonly number[] | null,
    recvbuf: ArrayBufferView,
    recvCounts: readonly number[],
    rdispls: readonly number[] | null,
    options?: NeighborOptions,
  ): Promise<void> {
    return this.#run('neighborAlltoallv', (ch) => neighbor.alltoallv(ch, this.neighborhood, sendbuf, sendCounts, sdispls, recvbuf, recvCounts, rdispls, options));
  }

  /** Checks, then the exchange on the collective context, its wait named for deadlock reports. */
  async #run(what: string, body: (ch: CollChannel) => Promise<void>): Promise<void> {
    this.mpiState.requireActive();
    if (this.freed) throw new MpiError(ErrorClass.ERR_COMM, `${this.name} has been freed`, { argument: 'comm' });
    this.#channel ??= new CollChannel(this.mpiState.p2p, this.context + 1, this.group.worldRanks, this.rank, this.mpiState.job.runtime.clock, this.name);
    const run = body(this.#channel);
    const runtime = this.mpiState.job.runtime;
    await (runtime.declareWait === undefined ? run : runtime.declareWait(`MPI ${what} on ${this.name}`, run));
  }
}
