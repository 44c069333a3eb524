import { ErrorClass, MpiError } from '../api/errors.js';

/** Ids travel in 29 bits of an immediate (see `device/rdma/immediate.ts`). */
export const MAX_REQUEST_ID = (1 << 29) - 1;

/**
 * Requests a peer names by id (rendezvous FIN, synchronous ACK, CTS): an array indexed by id with a
 * free list, so lookup, insertion and removal are O(1) however many requests are outstanding.
 */
export class RequestTable<T> {
  readonly #slots: (T | undefined)[] = [undefined];
  readonly #free: number[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** A fresh id (≥ 1) for `value`. */
  add(value: T): number {
    let id = this.#free.pop();
    if (id === undefined) {
      id = this.#slots.length;
      if (id > MAX_REQUEST_ID) throw new MpiError(ErrorClass.ERR_NO_MEM, `more than ${MAX_REQUEST_ID} requests are waiting for a peer`);
      this.#slots.push(value);
    } else this.#slots[id] = value;
    this.#size++;
    return id;
  }

  get(id: number): T | undefined {
    return this.#slots[id];
  }

  /** Remove and return the value of `id` (undefined if none: a stale or forged id). */
  take(id: number): T | undefined {
    const value = this.#slots[id];
    if (value === undefined || id === 0) return undefined;
    this.#slots[id] = undefined;
    this.#free.push(id);
    this.#size--;
    return value;
  }

  /** Every value, for failing them when a peer is lost (not a hot path). */
  values(): T[] {
    return this.#slots.filter((v): v is T => v !== undefined);
  }
}
