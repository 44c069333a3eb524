import type { Clock } from '@dapl/core';
import { ErrorClass, MpiError } from '../api/errors.js';
import type { PointToPoint } from '../adi/point-to-point.js';
import type { RequestCore } from '../adi/request-core.js';
import { SendMode } from '../adi/requests.js';
import { byteSpan } from '../adi/transfer.js';

/**
 * Point-to-point on a communicator's collective context (its point-to-point context + 1), so that
 * collective traffic never matches user traffic. Ranks are ranks of the communicator; data is packed
 * bytes. Collectives are called in the same order on every member (MPI's rule), and each peer's
 * messages arrive in order, so one tag per algorithm step is enough.
 */
export class CollChannel {
  constructor(
    private readonly p2p: PointToPoint,
    private readonly context: number,
    /** World rank of each member. */
    private readonly members: readonly number[],
    readonly rank: number,
    readonly clock: Clock,
  ) {}

  get size(): number {
    return this.members.length;
  }

  isend(bytes: Uint8Array, dest: number, tag: number): RequestCore {
    return this.p2p.isend(this.members[dest], this.context, this.rank, tag, byteSpan(bytes), SendMode.STANDARD);
  }

  irecv(bytes: Uint8Array, source: number, tag: number): RequestCore {
    return this.p2p.irecv(this.context, source, tag, byteSpan(bytes), this.members[source]);
  }

  async send(bytes: Uint8Array, dest: number, tag: number): Promise<void> {
    await this.isend(bytes, dest, tag).wait();
  }

  async recv(bytes: Uint8Array, source: number, tag: number): Promise<void> {
    await this.irecv(bytes, source, tag).wait();
  }

  /** Send and receive at once (both posted before either is waited for). */
  async sendrecv(out: Uint8Array, dest: number, into: Uint8Array, source: number, tag: number): Promise<void> {
    const r = this.irecv(into, source, tag);
    const s = this.isend(out, dest, tag);
    await Promise.all([r.wait(), s.wait()]);
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

/** Wait for every request; the first failure rejects (after all have settled). */
export async function waitAll(requests: readonly RequestCore[]): Promise<void> {
  const settled = await Promise.allSettled(requests.map((r) => r.wait()));
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}
