import type { Lmr } from '@dapl/core';
import type { RingBlock } from './send-buffer-ring.js';

/** A send copied into the send buffer, waiting for its receiver's header (one-copy path). */
export interface Spooled {
  readonly dst: number;
  readonly slot: number;
  readonly bytes: Uint8Array;
  readonly lmr: Lmr;
  /** Its place in the send buffer, freed once the copy has gone. */
  readonly block: RingBlock;
}

/** A spooled send in its cell's queue. */
interface Entry {
  readonly spooled: Spooled;
  /** When it was spooled, among all (the oldest goes first on a wildcard header). */
  readonly order: number;
  next: Entry | undefined;
}

/**
 * The one-copy sends that wait for their receivers' headers, queued per (peer, slot) cell in the
 * order they were spooled: a header's arrival finds the send it releases without a search, however
 * many are spooled. An FMPL_ANY_TAG header from a peer releases the oldest send spooled to that
 * peer on a user index, found by a pass over that peer's indexes (as waking its waiters is), never
 * over the whole spool. A cell usually holds one send (an index serves one pair at a time, the FMPL paper (Tatebe et al.)
 * §2.3); the library's own indexes can hold more, e.g. a root's broadcasts to a child that has not
 * received yet, and they go in order.
 */
export class SendSpool {
  readonly #head: (Entry | undefined)[];
  readonly #tail: (Entry | undefined)[];
  /** Spooled sends per peer, and those of them on a user index (a wildcard header is theirs first). */
  readonly #toPeer: Uint32Array;
  readonly #userToPeer: Uint32Array;
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
    this.#head = new Array(peers * slots);
    this.#tail = new Array(peers * slots);
    this.#toPeer = new Uint32Array(peers);
    this.#userToPeer = new Uint32Array(peers);
  }

  get size(): number {
    return this.#count;
  }

  /** Some send to `dst` on `slot` is spooled: a header for that index is its, not a later send's. */
  holds(dst: number, slot: number): boolean {
    return this.#head[dst * this.slots + slot] !== undefined;
  }

  /** Some send to `dst` on a user index is spooled: a wildcard header from `dst` is the oldest one's. */
  holdsUserSendTo(dst: number): boolean {
    return this.#userToPeer[dst] !== 0;
  }

  add(spooled: Spooled): void {
    const cell = spooled.dst * this.slots + spooled.slot;
    const entry: Entry = { spooled, order: ++this.#spooledSoFar, next: undefined };
    const tail = this.#tail[cell];
    if (tail === undefined) this.#head[cell] = entry;
    else tail.next = entry;
    this.#tail[cell] = entry;
    this.#toPeer[spooled.dst]++;
    if (spooled.slot < this.userSlots) this.#userToPeer[spooled.dst]++;
    this.#count++;
  }

  /** A header came from `peer` for `slot` (or the wildcard slot); true if it may release a spooled send. */
  headerArrived(peer: number, slot: number): boolean {
    if (this.#toPeer[peer] === 0) return false;
    const cell = peer * this.slots + slot;
    if (slot !== this.anySlot && this.#head[cell] === undefined) return false;
    this.#arrived.push(cell);
    return true;
  }

  /**
   * Remove and `send` the spooled sends the arrived headers release: first the heads of the cells
   * whose own header is there (`exact`: a note may be stale, its send gone and a younger one at the
   * head), then, for each wildcard header, the oldest sends to its peer while a header is there for
   * them (`ready`: exact or wildcard; the oldest may have had its own header, which `send` prefers).
   * `send` must take the header it uses before it returns, so that the next check sees it gone.
   */
  release(exact: (dst: number, slot: number) => boolean, ready: (dst: number, slot: number) => boolean, send: (s: Spooled) => void): void {
    const arrived = this.#arrived;
    this.#arrived = [];
    for (const cell of arrived) {
      if (cell % this.slots !== this.anySlot) this.#releaseHead(cell, exact, send);
    }
    for (const cell of arrived) {
      if (cell % this.slots !== this.anySlot) continue;
      const peer = Math.floor(cell / this.slots);
      for (let oldest = this.#oldestCellTo(peer); oldest !== undefined && this.#releaseHead(oldest, ready, send); oldest = this.#oldestCellTo(peer));
    }
  }

  /** Send the first of `cell`'s queue if `has` a header for it; whether it went. */
  #releaseHead(cell: number, has: (dst: number, slot: number) => boolean, send: (s: Spooled) => void): boolean {
    const entry = this.#head[cell];
    if (entry === undefined || !has(entry.spooled.dst, entry.spooled.slot)) return false;
    this.#shift(cell, entry);
    send(entry.spooled);
    return true;
  }

  /** The oldest spooled send (finalize waits for its header); a pass over every cell. */
  oldest(): Spooled | undefined {
    let found: Entry | undefined;
    for (const entry of this.#head) if (entry !== undefined && (found === undefined || entry.order < found.order)) found = entry;
    return found?.spooled;
  }

  /** The user cell of `peer` whose first send is the oldest. */
  #oldestCellTo(peer: number): number | undefined {
    if (this.#toPeer[peer] === 0) return undefined;
    let found: number | undefined;
    let foundOrder = Infinity;
    for (let slot = 0, cell = peer * this.slots; slot < this.userSlots; slot++, cell++) {
      const entry = this.#head[cell];
      if (entry !== undefined && entry.order < foundOrder) {
        found = cell;
        foundOrder = entry.order;
      }
    }
    return found;
  }

  #shift(cell: number, entry: Entry): void {
    this.#head[cell] = entry.next;
    if (entry.next === undefined) this.#tail[cell] = undefined;
    this.#toPeer[entry.spooled.dst]--;
    if (entry.spooled.slot < this.userSlots) this.#userToPeer[entry.spooled.dst]--;
    this.#count--;
  }
}
