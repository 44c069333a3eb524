/** A copy's place in the send buffer, until `SendBufferRing.free`. */
export interface RingBlock {
  readonly offset: number;
  readonly length: number;
  /** Bytes skipped at the buffer's end before this block (it wrapped to 0), held until it is the oldest. */
  skipped: number;
  freed: boolean;
  next: RingBlock | undefined;
}

/**
 * The send buffer's space for one-copy sends, as a ring: copies are placed one after another and
 * wrap to the start, and a copy's space comes back once it and every copy placed before it are
 * freed. Copies are freed in the order their headers come, not the order they were made, so a
 * copy freed early waits for the older ones; but a steady stream reuses the buffer without it ever
 * emptying (a bump pointer reset only when nothing was spooled would refuse such a stream once
 * the buffer had been filled once).
 */
export class SendBufferRing {
  /** Oldest and newest live blocks (allocation order). */
  #oldest: RingBlock | undefined;
  #newest: RingBlock | undefined;
  /** Where the next block goes, and where the oldest live one starts. */
  #head = 0;
  #tail = 0;
  /** Live bytes run from tail to the end and on from 0 to head (else from tail to head). */
  #wrapped = false;
  #inUse = 0;

  constructor(readonly capacity: number) {}

  /** Bytes held by copies not yet freed (with any end of the buffer skipped for them). */
  get inUse(): number {
    return this.#inUse;
  }

  /** Room for `length` bytes, or undefined if the live copies leave none. */
  allocate(length: number): RingBlock | undefined {
    let offset: number;
    let skipped = 0;
    if (this.#wrapped) {
      if (length > this.#tail - this.#head) return undefined;
      offset = this.#head;
    } else if (length <= this.capacity - this.#head) {
      offset = this.#head;
    } else if (length <= this.#tail) {
      // Not at the end: from the start, up to the oldest live copy.
      skipped = this.capacity - this.#head;
      offset = 0;
      this.#wrapped = true;
    } else return undefined;
    const block: RingBlock = { offset, length, skipped, freed: false, next: undefined };
    if (this.#newest === undefined) this.#oldest = block;
    else this.#newest.next = block;
    this.#newest = block;
    this.#head = offset + length;
    this.#inUse += length + skipped;
    return block;
  }

  /** The copy has gone (or failed): its bytes are read no more. */
  free(block: RingBlock): void {
    if (block.freed) return;
    block.freed = true;
    while (this.#oldest?.freed === true) {
      const gone = this.#oldest;
      this.#inUse -= gone.length + gone.skipped;
      const next = gone.next;
      this.#oldest = next;
      if (next === undefined) {
        // Empty: start again at 0, the most room in one piece.
        this.#newest = undefined;
        this.#head = this.#tail = 0;
        this.#wrapped = false;
      } else {
        // Back past the wrap (the oldest is now the first copy placed at 0): live bytes run from 0
        // again, and the end it skipped is free.
        if (next.offset < this.#tail) {
          this.#wrapped = false;
          this.#inUse -= next.skipped;
          next.skipped = 0;
        }
        this.#tail = next.offset;
      }
    }
  }
}
