/**
 * @packageDocumentation
 * `@dapl/mpi`: MPI over any DAT provider — point-to-point in all four modes, communicators and
 * groups, derived datatypes — with an MVAPICH2-style rdma device (eager through pre-registered
 * buffers with credits, rendezvous by RDMA read). The same program runs over tcp processes and on
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
export { ErrorClass, MpiError, isMpiError, type InStatusEntry, type MpiErrorOptions } from './api/errors.js';
export { ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED, TAG_UB, ROOT } from './api/constants.js';
export { Mpi, type MpiInitOptions } from './api/mpi.js';
export { Comm, type SendOptions, type RecvOptions, type SendrecvOptions } from './api/comm.js';
export { InterComm } from './api/inter-comm.js';
export type { CollectiveOptions } from './coll/arguments.js';
export { Request } from './api/request.js';
export { Status } from './api/status.js';
export { Group, IDENT, CONGRUENT, SIMILAR, UNEQUAL } from './api/group.js';
export { BSEND_OVERHEAD } from './api/attached-buffer.js';
export { MPI_PARAMETERS, type MpiParameters } from './api/mpi-parameters.js';
export type { BufferOptions } from './api/buffer-span.js';
export { Datatype } from './datatype/index.js';
export { Op, type UserFunction, type ElementArray } from './coll/op.js';
export { IN_PLACE, type InPlace } from './coll/in-place.js';
