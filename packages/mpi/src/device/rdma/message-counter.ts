/** (context, tag) as one number: contexts are small non-negative ints, tags at most TAG_UB (2^31 - 1). */
export function messageKey(context: number, tag: number): number {
  return context * 0x8000_0000 + tag;
}

/**
 * Messages of one direction of a link, counted per (context, tag). The sender counts what it puts
 * on the wire and the receiver what it hands to matching, in the same order, so the two counters
 * agree message for message: a receive can name "the n-th message with this tag" and the sender
 * knows which one that is. Memory is bounded: when a new key finds the map full, both ends clear it
 * at the same message and start a new epoch (counts of different epochs are not compared).
 */
export class MessageCounter {
  static readonly KEYS = 4096;
  epoch = 0;
  /** Boxed counts, so counting a known key is one lookup and no map write. Made by the first count (a link may carry traffic one way only). */
  #counts: Map<number, { n: number }> | undefined = undefined;
  readonly #limit: number;
  /** The last key counted and its box: a stream on one tag skips even the lookup. */
  #lastKey = -1;
  #lastBox: { n: number } | undefined = undefined;

  constructor(limit = MessageCounter.KEYS) {
    this.#limit = limit;
  }

  /** Messages counted for (context, tag) in this epoch. */
  counted(context: number, tag: number): number {
    return this.#counts?.get(messageKey(context, tag))?.n ?? 0;
  }

  /** The ordinal (1-based) the next (context, tag) message will get, without counting it. */
  nextOrdinal(context: number, tag: number): number {
    return this.counted(context, tag) + 1;
  }

  /**
   * The epoch of the next message, given its `nextOrdinal`: ordinal 1 means a new key, which
   * starts a new epoch when the map is full. (Two numbers, not an object: a send asks per message.)
   */
  nextEpoch(nextOrdinal: number): number {
    return nextOrdinal === 1 && (this.#counts?.size ?? 0) >= this.#limit ? this.epoch + 1 : this.epoch;
  }

  /** Count one (context, tag) message; returns its ordinal in the (possibly new) epoch. */
  count(context: number, tag: number): number {
    const key = messageKey(context, tag);
    const counts = (this.#counts ??= new Map());
    const box = key === this.#lastKey ? this.#lastBox : counts.get(key);
    if (box !== undefined) {
      this.#lastKey = key;
      this.#lastBox = box;
      return ++box.n;
    }
    if (counts.size >= this.#limit) {
      counts.clear();
      this.epoch++;
    }
    const fresh = { n: 1 };
    counts.set(key, fresh);
    this.#lastKey = key;
    this.#lastBox = fresh;
    return 1;
  }
}
