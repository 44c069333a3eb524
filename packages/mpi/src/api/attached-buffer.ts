import { ErrorClass, MpiError } from './errors.js';

/** Bytes of bookkeeping each buffered send takes in the attached buffer (MPI_BSEND_OVERHEAD). */
export const BSEND_OVERHEAD = 64;

interface Block {
  readonly start: number;
  readonly length: number;
}

/**
 * The buffer of `bufferAttach` (MPI_Buffer_attach): buffered sends copy their data into it and send
 * from there; a region is free again when its send completes. First fit over the free list, which is
 * as short as the number of buffered sends in flight.
 */
export class AttachedBuffer {
  readonly #free: Block[];
  #inFlight = 0;
  #idle: (() => void)[] = [];
  /** The first buffered send that failed after its caller was told it was done, and how many did. */
  #failure: MpiError | undefined;
  #failures = 0;

  constructor(readonly bytes: Uint8Array) {
    this.#free = [{ start: 0, length: bytes.length }];
  }

  /**
   * A region of `size` data bytes (plus the overhead); ERR_BUFFER if it does not fit now. `release`
   * frees it once its send is over, with the send's error if it failed.
   */
  take(size: number): { region: Uint8Array; release: (error?: MpiError) => void } {
    const need = size + BSEND_OVERHEAD;
    const i = this.#free.findIndex((b) => b.length >= need);
    if (i < 0) {
      const largest = this.#free.reduce((m, b) => Math.max(m, b.length), 0);
      throw new MpiError(
        ErrorClass.ERR_BUFFER,
        `a buffered send of ${size} bytes needs ${need} bytes of the attached buffer (BSEND_OVERHEAD ${BSEND_OVERHEAD}); the largest free region is ${largest} of ${this.bytes.length} bytes`,
        { argument: 'buf' },
      );
    }
    const block = this.#free[i];
    if (block.length === need) this.#free.splice(i, 1);
    else this.#free[i] = { start: block.start + need, length: block.length - need };
    this.#inFlight++;
    const start = block.start;
    return {
      region: this.bytes.subarray(start + BSEND_OVERHEAD, start + need),
      release: (error?: MpiError) => {
        if (error !== undefined) {
          this.#failure ??= error;
          this.#failures++;
        }
        this.#give({ start, length: need });
      },
    };
  }

  /** The first buffered send from this buffer that failed, if any, and how many failed. */
  get failures(): { readonly first: MpiError | undefined; readonly count: number } {
    return { first: this.#failure, count: this.#failures };
  }

  /** Settles when no buffered send is in flight (MPI_Buffer_detach waits for them). */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #give(block: Block): void {
    // Insert in address order and merge with the neighbours.
    let i = 0;
    while (i < this.#free.length && this.#free[i].start < block.start) i++;
    this.#free.splice(i, 0, block);
    if (i + 1 < this.#free.length && block.start + block.length === this.#free[i + 1].start) {
      this.#free.splice(i, 2, { start: block.start, length: block.length + this.#free[i + 1].length });
    }
    if (i > 0 && this.#free[i - 1].start + this.#free[i - 1].length === this.#free[i].start) {
      this.#free.splice(i - 1, 2, { start: this.#free[i - 1].start, length: this.#free[i - 1].length + this.#free[i].length });
    }
    if (--this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve();
  }
}
