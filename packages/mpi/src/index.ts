/**
 * @packageDocumentation
 * `@dapl/mpi`: MPI over any DAT provider — point-to-point in all four modes, communicators and
 * groups, derived datatypes, collectives, one-sided windows (`Win`: put, get, accumulate, fetches;
 * fence, PSCW, locks and flushes) — with an MVAPICH2-style rdma device (eager through
 * pre-registered buffers with credits, rendezvous by RDMA read). The same program runs over tcp processes and on
 * the simulated ib, lapi and combuf machines.
 *
 * @example
 * ```ts
 * import { Mpi } from '@dapl/mpi';
 * const mpi = await Mpi.init();
 * const world = mpi.world;
 * if (world.rank === 0) await world.send(new Int32Array([1, 2, 3]), 1, 7);
 * else if (world.rank === 1) await world.recv(new Int32Array(3), 0, 7);
 * await mpi.finalize();
 * ```
 */
export { ErrorClass, MpiError, isMpiError, type InStatusEntry, type MpiErrorOptions, type StatusLike } from './api/errors.js';
export { ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED, TAG_UB, ROOT } from './api/constants.js';
export { Mpi, type MpiInitOptions } from './api/mpi.js';
export { Comm } from './api/comm.js';
export type { SendOptions, RecvOptions, SendrecvOptions } from './api/p2p-options.js';
export { InterComm } from './api/inter-comm.js';
export type { CollectiveOptions } from './coll/arguments.js';
export { Request } from './api/request.js';
export { PersistentRequest } from './api/persistent-request.js';
export { SPLIT_TYPE_SHARED } from './api/split-type.js';
export type { RankRange } from './api/group-ranges.js';
export { TopoComm, type TopologyKind } from './topo/topo-comm.js';
export { CartComm } from './topo/cart-comm.js';
export { GraphComm, DistGraphComm, type DistGraphOptions } from './topo/graph-comm.js';
export type { NeighborOptions } from './topo/neighbor-collectives.js';
export { Status } from './api/status.js';
export { Group, IDENT, CONGRUENT, SIMILAR, UNEQUAL } from './api/group.js';
export { BSEND_OVERHEAD } from './api/attached-buffer.js';
export { MPI_PARAMETERS, type MpiParameters } from './api/mpi-parameters.js';
export type { BufferOptions } from './api/buffer-span.js';
export { Datatype, DISTRIBUTE_DFLT_DARG, ORDER_CODES, DISTRIBUTION_CODES, type Combiner, type TypeContents, type ArrayOrder, type Distribution } from './datatype/index.js';
export { Op, type UserFunction, type ElementArray } from './coll/op.js';
export { IN_PLACE, type InPlace } from './coll/in-place.js';
export type { SendBuffer } from './coll/collectives.js';
export { Win, type WinOptions } from './rma/win.js';
export type { LockMode } from './rma/lock-manager.js';
export type { RmaOptions } from './rma/checks.js';
export { MODE_NOCHECK, MODE_NOSTORE, MODE_NOPUT, MODE_NOPRECEDE, MODE_NOSUCCEED } from './rma/synchronization.js';
