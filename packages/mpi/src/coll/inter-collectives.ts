import type { BufferOptions } from '../api/buffer-span.js';
import { PROC_NULL, ROOT } from '../api/constants.js';
import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { binomialGather, block, uniformLayout } from './algorithms/blocks.js';
import { binomialBcast, binomialReduceToZero, disseminationBarrier, CollTag } from './algorithms/tree.js';
import { checkOp, datatypeFor, receiveCount, reduction, sideType, sides, spanOf, type CollectiveOptions } from './arguments.js';
import type { CollChannel } from './channel.js';
import type { SendBuffer } from './collectives.js';
import { IN_PLACE } from './in-place.js';
import { Datatype } from '../datatype/index.js';
import { recursiveDoublingAllreduce } from './algorithms/allreduce.js';
import { Op } from './op.js';
import { packed, unpacked } from './packing.js';
import { runBlocking, type Steps } from './schedule.js';

/**
 * The MPI-2 intercommunicator collectives (MPI-3.1 §5.2.2, as MPICH builds them): the data goes
 * from one group to the other. `inter` addresses the remote group (its ranks), `local` this
 * group's members on the intercommunicator's private local context; each group works locally
 * (reduce, gather, bcast on `local`) and the two local leaders (rank 0 of each group) meet on
 * `inter`. Rooted ones take `ROOT` at the root, `PROC_NULL` at the rest of its group and the
 * root's rank in the remote group on the other side. IN_PLACE is not defined on them.
 */
export class InterCollectives {
  constructor(
    private readonly inter: CollChannel,
    private readonly local: CollChannel,
  ) {}

  /** Local barrier, the leaders meet, then the leader releases its group. */
  barrier(): Promise<void> {
    return runBlocking(this.#barrier());
  }

  *#barrier(): Steps {
    const none = new Uint8Array(0);
    yield* disseminationBarrier(this.local);
    yield* this.#leadersThenLocal(none, none, CollTag.BARRIER);
  }

  /** The root sends to the remote group's rank 0, which broadcasts in its group. */
  bcast(buf: ArrayBufferView, root: number, options: BufferOptions): Promise<void> {
    return runBlocking(this.#bcast(buf, root, options));
  }

  *#bcast(buf: ArrayBufferView, root: number, options: BufferOptions): Steps {
    const role = this.#role(root);
    if (role === PROC_NULL) return;
    const span = spanOf(buf, options, 'buf');
    const data = packed(span, role === ROOT);
    if (role === ROOT) {
      yield this.inter.isend(data, 0, CollTag.BCAST);
      return;
    }
    if (this.local.rank === 0) yield this.inter.irecv(data, role, CollTag.BCAST);
    yield* binomialBcast(this.local, data, 0);
    unpacked(span, data, this.local);
  }

  /** The remote group reduces to its rank 0 (in its rank order), which sends the result to the root. */
  reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options: BufferOptions): Promise<void> {
    return runBlocking(this.#reduce(sendbuf, recvbuf, op, root, options));
  }

  *#reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options: BufferOptions): Steps {
    const role = this.#role(root);
    if (role === PROC_NULL) return;
    if (role === ROOT) {
      const datatype = datatypeFor(recvbuf, options.datatype, 'recvbuf');
      checkOp(op, datatype);
      const output = spanOf(recvbuf, { datatype, count: options.count }, 'recvbuf');
      const result = packed(output, false);
      yield this.inter.irecv(result, 0, CollTag.REDUCE);
      unpacked(output, result, this.local);
      return;
    }
    const { input, datatype, count } = reduction(sendbuf, null, op, options, false, 'an intercommunicator reduce (not defined there)');
    const acc = packed(input, true).slice();
    yield* binomialReduceToZero(this.local, acc, count, datatype, op);
    if (this.local.rank === 0) yield this.inter.isend(acc, role, CollTag.REDUCE);
  }

  /** Each group gets the reduction of the other group's data. */
  allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Promise<void> {
    return runBlocking(this.#allreduce(sendbuf, recvbuf, op, options));
  }

  *#allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options: BufferOptions): Steps {
    notInPlace(sendbuf);
    const { input, output, datatype, count } = reduction(sendbuf, recvbuf, op, options, true, 'allreduce');
    const acc = packed(input, true).slice();
    yield* binomialReduceToZero(this.local, acc, count, datatype, op);
    const theirs = new Uint8Array(acc.length);
    yield* this.#leadersThenLocal(acc, theirs, CollTag.ALLREDUCE);
    unpacked(output!, theirs, this.local);
  }

  /** Each group gets the other group's blocks in its rank order: gathered locally, swapped by the leaders, broadcast locally. */
  allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Promise<void> {
    return runBlocking(this.#allgather(sendbuf, recvbuf, options));
  }

  *#allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Steps {
    notInPlace(sendbuf);
    const s = sides(options);
    const mine = packed(spanOf(sendbuf, { datatype: sideType(s, 'send', sendbuf, sendbuf, 'sendbuf'), count: s.send.count }, 'sendbuf'), true);
    const rt = sideType(s, 'recv', recvbuf, sendbuf, 'recvbuf');
    const remote = this.inter.size;
    const per = receiveCount(s.recv.count, mine.length, rt, () => spanOf(recvbuf, { datatype: rt }, 'recvbuf').count, remote, s.twoSided ? 'options.recv.count' : 'count');
    const all = spanOf(recvbuf, { datatype: rt, count: per * remote }, 'recvbuf');
    const ours = this.local.rank === 0 ? new Uint8Array(mine.length * this.local.size) : undefined;
    yield* binomialGather(this.local, mine, ours, 0, mine.length);
    const theirs = packed(all, false);
    yield* this.#leadersThenLocal(ours ?? new Uint8Array(0), theirs, CollTag.ALLGATHER);
    unpacked(all, theirs, this.local);
  }

  /** Block r of `sendbuf` to remote rank r, block r of `recvbuf` from it: every exchange in one round. */
  alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Promise<void> {
    return runBlocking(this.#alltoall(sendbuf, recvbuf, options));
  }

  *#alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options: CollectiveOptions): Steps {
    notInPlace(sendbuf);
    const s = sides(options);
    const remote = this.inter.size;
    const st = sideType(s, 'send', sendbuf, sendbuf, 'sendbuf');
    const sendPer = s.send.count ?? Math.floor(spanOf(sendbuf, { datatype: st }, 'sendbuf').count / remote);
    const send = spanOf(sendbuf, { datatype: st, count: sendPer * remote }, 'sendbuf');
    const rt = sideType(s, 'recv', recvbuf, sendbuf, 'recvbuf');
    const recvPer = receiveCount(s.recv.count, send.size / remote, rt, () => spanOf(recvbuf, { datatype: rt }, 'recvbuf').count, remote, s.twoSided ? 'options.recv.count' : 'count');
    const recv = spanOf(recvbuf, { datatype: rt, count: recvPer * remote }, 'recvbuf');
    const sendBytes = packed(send, true);
    const recvBytes = packed(recv, false);
    const out = uniformLayout(send.size / remote);
    const into = uniformLayout(recv.size / remote);
    const round = [];
    for (let r = 0; r < remote; r++) round.push(this.inter.irecv(block(recvBytes, into, r), r, CollTag.ALLTOALL));
    for (let r = 0; r < remote; r++) round.push(this.inter.isend(block(sendBytes, out, r), r, CollTag.ALLTOALL));
    yield round;
    unpacked(recv, recvBytes, this.local);
  }

  /** The largest of each member's `values` in this group, left in `values` (the library's own agreement: merge). */
  localMax(values: Int32Array): Promise<void> {
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    return runBlocking(recursiveDoublingAllreduce(this.local, bytes, values.length, Datatype.INT32, Op.MAX));
  }

  /** The library's own exchange between the groups (merge): `mine` from each leader, `theirs` to every member. */
  exchange(mine: Uint8Array, theirs: Uint8Array): Promise<void> {
    return runBlocking(this.#leadersThenLocal(mine, theirs, CollTag.INTERNAL));
  }

  /** The leaders swap `mine` for `theirs`, then each leader broadcasts `theirs` in its group. */
  *#leadersThenLocal(mine: Uint8Array, theirs: Uint8Array, tag: CollTag): Steps {
    if (this.local.rank === 0) yield this.inter.exchange(mine, 0, theirs, 0, tag);
    yield* binomialBcast(this.local, theirs, 0);
  }

  /** ROOT, PROC_NULL, or the root's rank in the remote group. */
  #role(root: unknown): number {
    if (root === ROOT || root === PROC_NULL) return root;
    if (typeof root !== 'number' || !Number.isInteger(root) || root < 0 || root >= this.inter.size) {
      throw new MpiError(ErrorClass.ERR_ROOT, `root on intercommunicator ${this.inter.name} must be ROOT (the root itself), PROC_NULL (the rest of its group) or the root's rank in the remote group [0, ${this.inter.size - 1}], got ${describeValue(root)}`, { argument: 'root' });
    }
    return root;
  }
}

function notInPlace(sendbuf: SendBuffer): void {
  if (sendbuf === IN_PLACE) throw new MpiError(ErrorClass.ERR_BUFFER, 'IN_PLACE is not defined for intercommunicator collectives', { argument: 'sendbuf' });
}
