import type { Lmr } from '@dapl/core';

/** A send copied into the send buffer, waiting for its receiver's header (one-copy path). */
export interface Spooled {
  readonly dst: number;
  readonly slot: number;
  readonly bytes: Uint8Array;
  readonly lmr: Lmr;
}

/**
 * The one-copy sends that wait for their receivers' headers, indexed by (peer, slot): a cell holds at
 * most one, since its send stays in use until the copy has gone. A header's arrival finds its send
 * without a search, however many are spooled. An FMPL_ANY_TAG header from a peer releases the oldest
 * send spooled to that peer on a user index, found by a pass over that peer's indexes (as waking its
 * waiters is), never over the whole spool.
 */
export class SendSpool {
  readonly #at: (Spooled | undefined)[];
  /** Per cell, the order its send was spooled in (the oldest goes first on a wildcard header). */
  readonly #order: Float64Array;
  /** Spooled sends per peer. */
  readonly #toPeer: Uint32Array;
  /** Cells whose header came since the last release: an exact one for a spooled send, or a wildcard one. */
  #arrived: number[] = [];
  #count = 0;
  #spooledSoFar = 0;

  /**
   * `slots` per peer, of which the first `userSlots` are the user's indexes (a wildcard header
   * matches only those) and `anySlot` is where wildcard headers arrive.
   */
  constructor(
    peers: number,
    private readonly slots: number,
    private readonly userSlots: number,
    private readonly anySlot: number,
  ) {
    this.#at = new Array(peers * slots);
    this.#order = new Float64Array(peers * slots);
    this.#toPeer = new Uint32Array(peers);
  }

  get size(): number {
    return this.#count;
  }

  add(s: Spooled): void {
    const cell = s.dst * this.slots + s.slot;
    this.#at[cell] = s;
    this.#order[cell] = ++this.#spooledSoFar;
    this.#toPeer[s.dst]++;
    this.#count++;
  }

  /** A header came from `peer` for `slot` (or the wildcard slot); true if it may release a spooled send. */
  headerArrived(peer: number, slot: number): boolean {
    if (this.#toPeer[peer] === 0) return false;
    const cell = peer * this.slots + slot;
    if (slot !== this.anySlot && this.#at[cell] === undefined) return false;
    this.#arrived.push(cell);
    return true;
  }

  /**
   * Remove and `send` the spooled sends the arrived headers release, in the order the headers came.
   * `headerReady` is asked again for each: a zero-copy send may have taken a wildcard header first.
   * `send` must take the header it uses before it returns, so that the next check sees it gone.
   */
  release(headerReady: (dst: number, slot: number) => boolean, send: (s: Spooled) => void): void {
    const arrived = this.#arrived;
    this.#arrived = [];
    for (const cell of arrived) {
      const s = cell % this.slots === this.anySlot ? this.#oldestTo(Math.floor(cell / this.slots)) : this.#at[cell];
      if (s === undefined || !headerReady(s.dst, s.slot)) continue;
      this.#remove(s);
      send(s);
    }
  }

  /** The oldest spooled send (finalize waits for its header); a pass over every cell. */
  oldest(): Spooled | undefined {
    let found: Spooled | undefined;
    for (let cell = 0; cell < this.#at.length; cell++) {
      const s = this.#at[cell];
      if (s !== undefined && (found === undefined || this.#order[cell] < this.#order[found.dst * this.slots + found.slot])) found = s;
    }
    return found;
  }

  #oldestTo(peer: number): Spooled | undefined {
    if (this.#toPeer[peer] === 0) return undefined;
    let found: Spooled | undefined;
    let foundOrder = Infinity;
    for (let slot = 0, cell = peer * this.slots; slot < this.userSlots; slot++, cell++) {
      const s = this.#at[cell];
      if (s !== undefined && this.#order[cell] < foundOrder) {
        found = s;
        foundOrder = this.#order[cell];
      }
    }
    return found;
  }

  #remove(s: Spooled): void {
    this.#at[s.dst * this.slots + s.slot] = undefined;
    this.#toPeer[s.dst]--;
    this.#count--;
  }
}
