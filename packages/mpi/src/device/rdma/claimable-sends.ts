import { messageKey } from './message-counter.js';

/**
 * Our unanswered RTSs that a late advertisement may still claim, by (context, tag), epoch and
 * ordinal — numbers all, so keeping one costs no string per message. Per-key maps are dropped when
 * they empty: memory follows the RTSs outstanding.
 */
export class ClaimableSends<T> {
  /** Made by the first RTS: most links never send one. */
  #byKey: Map<number, Map<number, T>> | undefined = undefined;

  add(context: number, tag: number, epoch: number, ordinal: number, value: T): void {
    const key = messageKey(context, tag);
    const byKey = (this.#byKey ??= new Map());
    let sends = byKey.get(key);
    if (sends === undefined) byKey.set(key, (sends = new Map()));
    sends.set(position(epoch, ordinal), value);
  }

  /** Remove and return the send that is message `ordinal` of (context, tag) in `epoch`. */
  take(context: number, tag: number, epoch: number, ordinal: number): T | undefined {
    const key = messageKey(context, tag);
    const sends = this.#byKey?.get(key);
    if (sends === undefined) return undefined;
    const at = position(epoch, ordinal);
    const value = sends.get(at);
    if (value === undefined) return undefined;
    sends.delete(at);
    if (sends.size === 0) this.#byKey!.delete(key);
    return value;
  }

  clear(): void {
    this.#byKey?.clear();
  }
}

/** Epochs stay far below 2^20 and ordinals below 2^32: one exact number. */
function position(epoch: number, ordinal: number): number {
  return epoch * 0x1_0000_0000 + ordinal;
}
