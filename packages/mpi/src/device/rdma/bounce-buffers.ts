/**
 * A small pool of library buffers for blocking sends that complete before their transfer: made
 * when first needed and reused afterwards (so their registrations stay in the registration cache),
 * at most `count` of them lent at once.
 */
export class BounceBuffers {
  readonly #free: Uint8Array[] = [];
  #made = 0;

  constructor(
    readonly count: number,
    /** Bytes per buffer. */
    readonly size: number,
  ) {}

  /** A free buffer, or undefined when all are lent. */
  take(): Uint8Array | undefined {
    const buffer = this.#free.pop();
    if (buffer !== undefined || this.#made === this.count) return buffer;
    this.#made++;
    return new Uint8Array(this.size);
  }

  give(buffer: Uint8Array): void {
    this.#free.push(buffer);
  }
}
