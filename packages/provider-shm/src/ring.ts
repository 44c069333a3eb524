/**
 * A single-producer single-consumer ring of frames in a SharedArrayBuffer, one per direction of a
 * connection (the layout of MPICH nemesis' and Open MPI vader's per-peer queues, reduced to one
 * writer and one reader, so no lock and no compare-and-swap). Positions are byte counters modulo
 * 2^32; the producer publishes `head` with a release store after the frame is written, the
 * consumer publishes `tail` after it has copied the frame out. Each counter has its own cache line.
 * The consumer polls `head`, not the frame as FastForward's self-signalling slots do: a consumer
 * that reads a frame's lines while the producer writes them takes each line from the producer
 * between two of its stores.
 *
 * A frame is a 32-byte header of eight 32-bit words (never split: the capacity is a multiple of 32
 * and frames are 32-aligned) followed by its payload, which may wrap around the end.
 */
export const FRAME_HEADER_BYTES = 32;
export const FRAME_ALIGN = 32;
export const HEADER_WORDS = FRAME_HEADER_BYTES / 4;

/** Int32 indices in the ring's control block (64-byte lines apart). */
const HEAD = 0;
const TAIL = 16;
/** The producer waits for room: how many bytes free it waits for (0: none); the consumer rings its doorbell then. */
const WANT_ROOM = 32;
/** Pieces up to this many bytes are copied byte by byte: cheaper than making a view for `set`. */
export const SMALL_COPY = 64;
/** Bytes before the data: the control block. */
export const RING_CONTROL_BYTES = 192;

/** Frame size for a payload of `length` bytes. */
export function frameBytes(length: number): number {
  return FRAME_HEADER_BYTES + ((length + FRAME_ALIGN - 1) & ~(FRAME_ALIGN - 1));
}

/** One side's view of a ring; each thread makes its own over the shared memory. */
export class SpscRing {
  readonly control: Int32Array;
  readonly data: Uint8Array;
  /** The data as words, for frame headers. */
  readonly words: Int32Array;
  readonly capacity: number;
  readonly mask: number;
  /** The producer's own head, or the consumer's own tail (each side writes only its counter). */
  #mine = 0;
  /**
   * The producer's last look at the consumer's tail. Room is judged from it and the tail is read
   * again only when that shows too little (the cached index of Lee et al.'s MCRingBuffer and
   * FastForward): the tail's cache line, which the consumer writes for every frame, then crosses
   * between the CPUs only when the ring fills, not once per message.
   */
  #tailSeen = 0;

  constructor(buffer: SharedArrayBuffer, byteOffset: number, capacity: number) {
    this.control = new Int32Array(buffer, byteOffset, RING_CONTROL_BYTES / 4);
    this.data = new Uint8Array(buffer, byteOffset + RING_CONTROL_BYTES, capacity);
    this.words = new Int32Array(buffer, byteOffset + RING_CONTROL_BYTES, capacity / 4);
    this.capacity = capacity;
    this.mask = capacity - 1;
  }

  /** Bytes a ring of `capacity` takes in its buffer. */
  static bytes(capacity: number): number {
    return RING_CONTROL_BYTES + capacity;
  }

  // ---- producer ------------------------------------------------------------------------

  /** Bytes free for frames: at least `wanted` if that many are free (fewer may be reported when fewer are wanted). */
  room(wanted: number): number {
    const free = this.capacity - ((this.#mine - this.#tailSeen) >>> 0);
    if (free >= wanted) return free;
    this.#tailSeen = Atomics.load(this.control, TAIL);
    return this.capacity - ((this.#mine - this.#tailSeen) >>> 0);
  }

  /** Where the next frame goes (a data offset); write its header with `words` at `offset >> 2`. */
  get writeOffset(): number {
    return this.#mine & this.mask;
  }

  /** Copy `piece` into the payload area of the frame at `frameOffset`, `at` bytes into the payload. */
  put(frameOffset: number, at: number, piece: Uint8Array): void {
    const start = (frameOffset + FRAME_HEADER_BYTES + at) & this.mask;
    const first = Math.min(piece.length, this.capacity - start);
    if (first === piece.length) this.data.set(piece, start);
    else {
      this.data.set(piece.subarray(0, first), start);
      this.data.set(piece.subarray(first), 0);
    }
  }

  /** Copy `source[from, from + length)` into the payload of the frame at `frameOffset`, `at` bytes in (no view made for a small piece). */
  putFrom(frameOffset: number, at: number, source: Uint8Array, from: number, length: number): void {
    if (length > SMALL_COPY) {
      this.put(frameOffset, at, source.subarray(from, from + length));
      return;
    }
    const data = this.data;
    const mask = this.mask;
    const start = frameOffset + FRAME_HEADER_BYTES + at;
    for (let i = 0; i < length; i++) data[(start + i) & mask] = source[from + i];
  }

  /** Publish a frame of `bytes` (from `frameBytes`). */
  commit(bytes: number): void {
    this.#mine = (this.#mine + bytes) >>> 0;
    Atomics.store(this.control, HEAD, this.#mine | 0);
  }

  /**
   * Ask the consumer to ring our doorbell once half the ring is free; re-check `roomWanted` after.
   * Half, not the first bytes freed: a producer that sleeps is woken once per half ring it can then
   * write in one go, not once per frame, while the consumer drains the other half.
   */
  wantRoom(): void {
    Atomics.store(this.control, WANT_ROOM, this.capacity >>> 1);
  }

  /** The room a producer that asked for it waits for is free. */
  get roomWanted(): boolean {
    return this.room(this.capacity) >= this.capacity >>> 1;
  }

  // ---- consumer ------------------------------------------------------------------------

  /** The data offset of the next frame, or -1 when the ring is empty. */
  peek(): number {
    return Atomics.load(this.control, HEAD) === (this.#mine | 0) ? -1 : this.#mine & this.mask;
  }

  /** The payload bytes `[at, at + length)` of the frame at `frameOffset`, in one or two pieces, to `sink`. */
  take(frameOffset: number, at: number, length: number, sink: (piece: Uint8Array) => void): void {
    const start = (frameOffset + FRAME_HEADER_BYTES + at) & this.mask;
    const first = Math.min(length, this.capacity - start);
    sink(this.data.subarray(start, start + first));
    if (first < length) sink(this.data.subarray(0, length - first));
  }

  /** Copy the payload bytes `[0, length)` of the frame at `frameOffset` to `target` at `to` (a small piece: no view made). */
  copyOut(frameOffset: number, length: number, target: Uint8Array, to: number): void {
    const data = this.data;
    const mask = this.mask;
    const start = frameOffset + FRAME_HEADER_BYTES;
    for (let i = 0; i < length; i++) target[to + i] = data[(start + i) & mask];
  }

  /** Free a consumed frame of `bytes`; true when the room the producer asked to hear of is free. */
  release(bytes: number): boolean {
    this.#mine = (this.#mine + bytes) >>> 0;
    Atomics.store(this.control, TAIL, this.#mine | 0);
    const wanted = Atomics.load(this.control, WANT_ROOM);
    if (wanted === 0 || this.capacity - ((Atomics.load(this.control, HEAD) - this.#mine) >>> 0) < wanted) return false;
    Atomics.store(this.control, WANT_ROOM, 0);
    return true;
  }
}
