import type { Clock, Endpoint } from '@dapl/core';
import type { IncomingMessage } from '../../adi/requests.js';
import type { Arrival } from './arrival.js';
import type { PeerLink } from './peer-link.js';
import type { EagerBuffer } from './slot.js';

/** Gives a receive buffer back to its endpoint (and its credit back to the peer), or a fastbox back to its sender. */
export type Repost = (slot: EagerBuffer, ep: Endpoint, link: PeerLink) => void;

/**
 * The eager data of unexpected messages (the MPI-LAPI paper (Banikazemi et al.)'s early-arrival queue), within a bound. Up to
 * `limit` bytes are copied out of the receive buffers, whose credits then go back to the sender;
 * past it the data stays where it landed and its credit is not returned, so a sender that floods
 * an absent receiver stops on its own credits and the receiver's memory stays bounded.
 */
export class UnexpectedData {
  /** Bytes copied out and not yet consumed, and the most there have been. */
  bytes = 0;
  peakBytes = 0;
  /** Messages whose data still sits in a receive buffer, and the most there have been. */
  held = 0;
  peakHeld = 0;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly repost: Repost,
  ) {}

  /**
   * An eager message matched no receive: copy its data out if the bound allows, or `always` (a
   * receive waits on its sender: what it waits for may come behind, and only this buffer's credit
   * lets it come), else hold its buffer.
   */
  keep(message: IncomingMessage, arrival: Arrival, always = false): void {
    if (arrival.slot === undefined || message.payload === undefined) return;
    if (always || this.bytes + message.size <= this.limit) return this.#copyOut(message, arrival);
    arrival.link.held.push(message);
    if (++this.held > this.peakHeld) this.peakHeld = this.held;
  }

  /** A kept message's data is consumed: re-post its buffer, or forget its copy. */
  release(message: IncomingMessage, arrival: Arrival): void {
    const slot = arrival.slot;
    if (slot !== undefined) {
      arrival.slot = undefined;
      const held = arrival.link.held;
      // Held messages are consumed oldest first in the common case (index 0); at most a credit window of them.
      const at = held.indexOf(message);
      if (at >= 0) {
        held.splice(at, 1);
        this.held--;
      }
      this.repost(slot, arrival.ep, arrival.link);
    } else if (arrival.copied) {
      this.bytes -= message.size;
    }
  }

  /**
   * Copy out everything held for `link`, beyond the bound: a receive waits, and what it waits for
   * may be behind those buffers, so the peer must get its credits back for progress.
   */
  unhold(link: PeerLink | undefined): void {
    if (link === undefined || link.held.length === 0) return;
    for (const message of link.held.splice(0)) {
      this.held--;
      this.#copyOut(message, message.deviceState as Arrival);
    }
  }

  #copyOut(message: IncomingMessage, arrival: Arrival): void {
    message.payload = message.payload!.slice();
    this.clock.chargeCopy(message.size);
    this.bytes += message.size;
    if (this.bytes > this.peakBytes) this.peakBytes = this.bytes;
    const slot = arrival.slot!;
    arrival.slot = undefined;
    arrival.copied = true;
    this.repost(slot, arrival.ep, arrival.link);
  }
}
