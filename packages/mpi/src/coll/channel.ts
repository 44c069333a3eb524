import type { Clock } from '@dapl/core';
import { ErrorClass, MpiError } from '../api/errors.js';
import type { PointToPoint } from '../adi/point-to-point.js';
import type { RequestCore } from '../adi/request-core.js';
import { SendMode } from '../adi/requests.js';
import { byteSpan } from '../adi/transfer.js';

/**
 * Point-to-point on a communicator's collective context (its point-to-point context + 1), so that
 * collective traffic never matches user traffic. Ranks are ranks of the communicator; data is packed
 * bytes. Blocking collectives are called in the same order on every member (MPI's rule), and each
 * peer's messages arrive in order, so one tag per algorithm step is enough. A nonblocking
 * collective runs on a `tagged` view: every message of the operation carries the tag of its
 * sequence number, so several outstanding ones never take each other's messages.
 *
 * On an intercommunicator `members` is the remote group: ranks name remote processes and this
 * rank sends as its rank in the local group, as MPI's intercommunicator point-to-point does.
 */
export class CollChannel {
  constructor(
    private readonly p2p: PointToPoint,
    private readonly context: number,
    /** World rank of each rank this channel addresses. */
    private readonly members: readonly number[],
    readonly rank: number,
    readonly clock: Clock,
    /** The communicator's name, for error messages. */
    readonly name: string,
    /** When set, the tag of every message (the algorithms' own tags are then ignored). */
    private readonly fixedTag?: number,
  ) {}

  get size(): number {
    return this.members.length;
  }

  /** This channel with every message on `tag` (one nonblocking collective's traffic). */
  tagged(tag: number): CollChannel {
    return new CollChannel(this.p2p, this.context, this.members, this.rank, this.clock, this.name, tag);
  }

  isend(bytes: Uint8Array, dest: number, tag: number): RequestCore {
    return this.p2p.isend(this.members[dest], this.context, this.rank, this.fixedTag ?? tag, byteSpan(bytes), SendMode.STANDARD);
  }

  irecv(bytes: Uint8Array, source: number, tag: number): RequestCore {
    return this.p2p.irecv(this.context, source, this.fixedTag ?? tag, byteSpan(bytes), this.members[source]);
  }

  /** Send and receive at once (the receive posted first): one step of an algorithm. */
  exchange(out: Uint8Array, dest: number, into: Uint8Array, source: number, tag: number): RequestCore[] {
    return [this.irecv(into, source, tag), this.isend(out, dest, tag)];
  }

  /** Local copy (this rank's own block), charged to the clock; ERR_TRUNCATE where it does not fit. */
  copy(from: Uint8Array, into: Uint8Array, at = 0): void {
    if (from.length === 0) return;
    if (at + from.length > into.length) {
      throw new MpiError(ErrorClass.ERR_TRUNCATE, `this rank's own block of ${from.length} bytes does not fit the ${Math.max(0, into.length - at)} bytes the receive buffer has for it`);
    }
    into.set(from, at);
    this.clock.chargeCopy(from.length);
  }
}
