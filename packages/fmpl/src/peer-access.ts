import { EpState, RegistrationCache, type Connections, type Endpoint, type Lmr, type Rmr, type RmrTriplet } from '@dapl/core';

/** User buffers (whole ArrayBuffers) kept registered, least recently used freed first. */
const REGISTERED_BUFFERS = 64;

/**
 * How an FMPL rank reaches its peers' memory and lets them reach its own: an endpoint per peer,
 * connected on first use; each peer's matching area (learnt at start); windows on user buffers,
 * through registrations that stay between messages (FMPL's remote-DMA areas) and RMRs reused
 * (a bind issues a fresh context each time).
 */
export class PeerAccess {
  readonly #connections: Connections;
  /** Where an empty buffer's window points (1 byte, never written). */
  readonly #empty: Lmr;
  readonly #cache: RegistrationCache;
  readonly #rmrs: Rmr[] = [];
  readonly #areas: RmrTriplet[] = [];
  readonly #endpoints: (Endpoint | Promise<Endpoint> | undefined)[] = [];

  constructor(connections: Connections, empty: Lmr) {
    this.#connections = connections;
    this.#empty = empty;
    this.#cache = new RegistrationCache(connections.pz, REGISTERED_BUFFERS);
  }

  /** Peer `peer`'s matching area, as it published it. */
  setArea(peer: number, area: RmrTriplet): void {
    this.#areas[peer] = area;
  }

  /** `length` bytes at `offset` of `peer`'s matching area. */
  remote(peer: number, offset: number, length: number): RmrTriplet {
    const area = this.#areas[peer];
    return { rmrContext: area.rmrContext, targetOffset: area.targetOffset + offset, length };
  }

  /** The connected endpoint to `peer` (a promise while it connects; a failed attempt is not cached). */
  endpoint(peer: number): Promise<Endpoint> | Endpoint {
    const cached = this.#endpoints[peer];
    if (cached !== undefined && !(cached instanceof Promise) && cached.state === EpState.CONNECTED) return cached;
    if (cached instanceof Promise) return cached;
    const made = this.#connections.endpoint(peer).then(
      (ep) => (this.#endpoints[peer] = ep),
      (error: unknown) => {
        // Not cached: the next operation to this peer connects again.
        if (this.#endpoints[peer] === made) this.#endpoints[peer] = undefined;
        throw error;
      },
    );
    this.#endpoints[peer] = made;
    return made;
  }

  /** `use` a registration of `bytes` that stays (pinned in the cache) until the transfer it makes has completed. */
  async pinned(bytes: Uint8Array, use: (lmr: Lmr) => Promise<void>): Promise<void> {
    const pinned = this.#cache.pin(bytes);
    try {
      await use(pinned.lmr);
    } finally {
      this.#cache.unpin(pinned);
    }
  }

  /** A window on `bytes` for the peer (an empty buffer gets a 1-byte window that is never written). */
  expose(bytes: Uint8Array, access: number): { rmr: Rmr; window: RmrTriplet } {
    const rmr = this.#rmrs.pop() ?? this.#connections.pz.createRmr();
    const window = bytes.length === 0 ? rmr.bind(this.#empty, 0, 1, access) : rmr.bind(this.#cache.lmrFor(bytes), bytes.byteOffset, bytes.length, access);
    return { rmr, window };
  }

  /** A window's RMR back to the pool. */
  release(rmr: Rmr): void {
    if (rmr.triplet !== undefined) rmr.unbind();
    this.#rmrs.push(rmr);
  }

  close(): void {
    this.#cache.close();
  }
}
