import type { RmrTriplet } from '@dapl/core';
import { messageKey } from './message-counter.js';

/**
 * A receive the peer posted and told us about: the message with this ordinal may be written
 * straight into it. It is the receive's buffer as an RMR triplet too (`length` is its capacity),
 * so the write targets it as it is.
 */
export interface Advertisement extends RmrTriplet {
  /** The receiver's request id (rings in the immediate of the write). */
  readonly receiverRequest: number;
  /** Epoch and ordinal (1-based, per context and tag) of the message the receive will match. */
  readonly epoch: number;
  readonly ordinal: number;
}

/** One (context, tag)'s advertisements, oldest first (ordinals increase). */
class AdvertisementQueue {
  readonly items: Advertisement[] = [];
  head = 0;
}

/**
 * The sender's side of receiver-initiated rendezvous: advertisements per (context, tag), in the
 * order the peer posted the receives. Finding the one for a message drops those its predecessors
 * already took, so the work per message is constant however many are held.
 */
export class AdvertisedReceives {
  /** Made by the first advertisement: most links never see one (only large receives are advertised). */
  #byKey: Map<number, AdvertisementQueue> | undefined = undefined;

  /** Keys with advertisements held (0: nothing to look up). */
  get size(): number {
    return this.#byKey?.size ?? 0;
  }

  add(context: number, tag: number, ad: Advertisement): void {
    const key = messageKey(context, tag);
    const byKey = (this.#byKey ??= new Map());
    let q = byKey.get(key);
    if (q === undefined) byKey.set(key, (q = new AdvertisementQueue()));
    q.items.push(ad);
  }

  /**
   * The advertisement for the message about to go out as `ordinal` of (context, tag) in `epoch`,
   * taken; undefined when none names it. Advertisements for earlier messages (or epochs) are dropped:
   * those receives took other messages.
   */
  take(context: number, tag: number, epoch: number, ordinal: number): Advertisement | undefined {
    const key = messageKey(context, tag);
    const q = this.#byKey?.get(key);
    if (q === undefined) return undefined;
    let found: Advertisement | undefined;
    while (q.head < q.items.length) {
      const ad = q.items[q.head];
      if (ad.epoch === epoch && ad.ordinal > ordinal) break;
      q.items[q.head++] = undefined as unknown as Advertisement;
      if (ad.epoch === epoch && ad.ordinal === ordinal) {
        found = ad;
        break;
      }
    }
    if (q.head === q.items.length) this.#byKey!.delete(key);
    else if (q.head > 64 && q.head * 2 > q.items.length) {
      q.items.splice(0, q.head);
      q.head = 0;
    }
    return found;
  }

  /**
   * The peer is taking back the receive advertised for message (`epoch`, `ordinal`) of (context,
   * tag): forget its advertisement and every later one of that key, whose receives will now match
   * earlier messages than they name. Earlier ones stay: a receive posted before the one taken back
   * still matches the message it names.
   */
  forgetFrom(context: number, tag: number, epoch: number, ordinal: number): void {
    const key = messageKey(context, tag);
    const q = this.#byKey?.get(key);
    if (q === undefined) return;
    let end = q.head;
    while (end < q.items.length && (q.items[end].epoch < epoch || (q.items[end].epoch === epoch && q.items[end].ordinal < ordinal))) end++;
    q.items.length = end;
    if (q.head === end) this.#byKey!.delete(key);
  }
}
