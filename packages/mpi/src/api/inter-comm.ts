import type { CollectiveOptions } from '../coll/arguments.js';
import { CollChannel } from '../coll/channel.js';
import type { SendBuffer } from '../coll/collectives.js';
import { InterCollectives } from '../coll/inter-collectives.js';
import type { Op } from '../coll/op.js';
import type { BufferOptions } from './buffer-span.js';
import { BUFFER_OPTION_KEYS, COLLECTIVE_OPTION_KEYS, requireOptions } from './check.js';
import { Comm } from './comm.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { Group } from './group.js';
import type { MpiState } from './mpi-state.js';

/**
 * An intercommunicator (MPI-2, MPI-3.1 §6.6): a local group and a disjoint remote group. Point-to-
 * point ranks name the remote group (`send(buf, 2)` goes to remote rank 2; a status's source is a
 * remote rank); `rank`, `size` and `group` are the local group's. The collectives defined on it
 * are MPI-2's barrier, bcast, reduce (rooted ones with `ROOT` / `PROC_NULL`, see
 * `InterCollectives`), allreduce, allgather and alltoall; the rest are ERR_COMM.
 *
 * Context ids: `context` (point-to-point), `context + 1` (collectives between the groups) and
 * `context + 3` (each group's own collectives), all agreed across both groups above any id either
 * group has used (see `createIntercomm`), so they collide with no intracommunicator's.
 */
export class InterComm extends Comm {
  readonly #state: MpiState;
  readonly #remote: Group;
  readonly #contextId: number;
  #coll: InterCollectives | undefined;

  /** @internal From `comm.intercommCreate`. */
  constructor(state: MpiState, local: Group, remote: Group, context: number, name: string) {
    super(state, local, context, name, remote);
    this.#state = state;
    this.#remote = remote;
    this.#contextId = context;
  }

  /** Ids an intercommunicator takes from `context` on (see the class comment). */
  static readonly CONTEXTS = 4;

  override barrier(): Promise<void> {
    return this.#collective('barrier', (c) => c.barrier());
  }

  override bcast(buf: ArrayBufferView, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`bcast, root ${root}`, (c) => c.bcast(buf, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'bcast')));
  }

  override reduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView | null, op: Op, root: number, options?: BufferOptions): Promise<void> {
    return this.#collective(`reduce, root ${root}`, (c) => c.reduce(sendbuf, recvbuf, op, root, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'reduce')));
  }

  override allreduce(sendbuf: SendBuffer, recvbuf: ArrayBufferView, op: Op, options?: BufferOptions): Promise<void> {
    return this.#collective('allreduce', (c) => c.allreduce(sendbuf, recvbuf, op, requireOptions<BufferOptions>(options, 'options', BUFFER_OPTION_KEYS, 'allreduce')));
  }

  override allgather(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Promise<void> {
    return this.#collective('allgather', (c) => c.allgather(sendbuf, recvbuf, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'allgather')));
  }

  override alltoall(sendbuf: SendBuffer, recvbuf: ArrayBufferView, options?: CollectiveOptions): Promise<void> {
    return this.#collective('alltoall', (c) => c.alltoall(sendbuf, recvbuf, requireOptions<CollectiveOptions>(options, 'options', COLLECTIVE_OPTION_KEYS, 'alltoall')));
  }

  /**
   * The intracommunicator of both groups (MPI_Intercomm_merge): the group that passes `high` false
   * first, each group in its own order; when both pass the same, the group holding the lower world
   * rank goes first. Collective over both groups.
   */
  async merge(high: boolean): Promise<Comm> {
    if (typeof high !== 'boolean') throw new MpiError(ErrorClass.ERR_ARG, `high must be a boolean, got ${describeValue(high)}`, { argument: 'high' });
    const state = this.#state;
    const local = this.group.worldRanks;
    const remote = this.#remote.worldRanks;
    // The largest unused context id in this group, and whether it goes high, swapped with the other group's.
    const mine = new Int32Array([state.nextContext, high ? 1 : 0]);
    await this.#collective('merge', (c) => c.localMax(mine.subarray(0, 1)));
    const theirs = new Int32Array(2);
    await this.#collective('merge', (c) => c.exchange(new Uint8Array(mine.buffer), new Uint8Array(theirs.buffer)));
    const context = Math.max(mine[0], theirs[0]);
    state.nextContext = Math.max(state.nextContext, context + 2);
    const first = mine[1] !== theirs[1] ? !high : Math.min(...local) < Math.min(...remote);
    const members = first ? [...local, ...remote] : [...remote, ...local];
    return new Comm(state, new Group(members, this.group.myWorldRank), context, `${this.name}.merge`);
  }

  async #collective(what: string, body: (c: InterCollectives) => Promise<void>): Promise<void> {
    if (this.freed) throw new MpiError(ErrorClass.ERR_COMM, `${this.name} has been freed`, { argument: 'comm' });
    this.#state.requireActive();
    const run = body(this.#collectives());
    const runtime = this.#state.job.runtime;
    await (runtime.declareWait === undefined ? run : runtime.declareWait(`MPI ${what} on intercommunicator ${this.name}`, run));
  }

  #collectives(): InterCollectives {
    if (this.#coll === undefined) {
      const { p2p, job } = this.#state;
      const clock = job.runtime.clock;
      const inter = new CollChannel(p2p, this.#contextId + 1, this.#remote.worldRanks, this.rank, clock, this.name);
      const local = new CollChannel(p2p, this.#contextId + 3, this.group.worldRanks, this.rank, clock, `${this.name} (local group)`);
      this.#coll = new InterCollectives(inter, local);
    }
    return this.#coll;
  }
}
