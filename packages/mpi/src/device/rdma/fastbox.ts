import { EpState, type Endpoint } from '@dapl/core';
import { HEADER_BYTES } from '../../adi/header.js';
import type { PeerLink } from './peer-link.js';

/** Bytes of one fastbox: its sequence word, the DAT messages before it, then a message as an eager buffer holds it (header, data). */
export const FASTBOX_BYTES = 512;
/** Int32 words ahead of the message: the sequence word (0: free) and the count of messages the sender put on DAT before it. */
const PREFIX_BYTES = 8;
/** The largest message a fastbox carries. */
export const FASTBOX_PAYLOAD = FASTBOX_BYTES - PREFIX_BYTES - HEADER_BYTES;
/** Sequence words count modulo this (never 0: 0 marks a free box). */
const SEQUENCE_MASK = 0x3fff_ffff;

/**
 * One fastbox of a connection's peer memory (MPICH nemesis' fastbox): a message the sender wrote
 * there and the receiver reads in place, with no transport between. It stands in for an eager
 * receive buffer (`Slot`): a header at 0 and data from HEADER_BYTES in `view` and `bytes`, and a
 * message that matched nothing may stay in it (held) as in a receive buffer, until `release`.
 */
export class BoxSlot {
  readonly view: DataView;
  readonly bytes: Uint8Array;
  /** Int32 index of the sequence word; the DAT count is the next word. */
  readonly word: number;

  constructor(
    readonly words: Int32Array,
    region: Uint8Array,
    at: number,
  ) {
    this.word = at / 4;
    const start = region.byteOffset + at + PREFIX_BYTES;
    this.view = new DataView(region.buffer, start, FASTBOX_BYTES - PREFIX_BYTES);
    this.bytes = new Uint8Array(region.buffer, start, FASTBOX_BYTES - PREFIX_BYTES);
  }

  /** A view of the data area, `length` bytes: for data kept past its arrival. */
  payload(length: number): Uint8Array {
    return this.bytes.subarray(HEADER_BYTES, HEADER_BYTES + length);
  }

  /** The receiver is done with the message: the sender may fill the box again. */
  release(): void {
    Atomics.store(this.words, this.word, 0);
  }
}

/** A region's fastboxes: a power of two of them, used in turn. */
function boxesOf(region: Uint8Array): { words: Int32Array; boxes: BoxSlot[] } {
  const count = 2 ** Math.floor(Math.log2(region.byteLength / FASTBOX_BYTES));
  const words = new Int32Array(region.buffer, region.byteOffset, (count * FASTBOX_BYTES) / 4);
  const boxes: BoxSlot[] = [];
  for (let i = 0; i < count; i++) boxes.push(new BoxSlot(words, region, i * FASTBOX_BYTES));
  return { words, boxes };
}

/** The sender's fastboxes to one peer (the outbound region of the connection). */
export class OutboundBoxes {
  readonly #words: Int32Array;
  readonly #boxes: BoxSlot[];
  readonly #mask: number;
  /** Messages written. */
  #written = 0;

  constructor(
    readonly ep: Endpoint,
    region: Uint8Array,
  ) {
    ({ words: this.#words, boxes: this.#boxes } = boxesOf(region));
    this.#mask = this.#boxes.length - 1;
  }

  /** The next box, if the receiver is done with what it last held; else undefined (the message goes by DAT). */
  take(): BoxSlot | undefined {
    if (this.ep.state !== EpState.CONNECTED) return undefined;
    const box = this.#boxes[this.#written & this.#mask];
    return Atomics.load(this.#words, box.word) === 0 ? box : undefined;
  }

  /** `box` (from `take`) holds its message: publish it, after `datBefore` messages of the link that went by DAT. */
  publish(box: BoxSlot, datBefore: number): void {
    this.#words[box.word + 1] = datBefore;
    // The store that publishes: the receiver's load of it sees every write above (sequentially consistent atomics).
    Atomics.store(this.#words, box.word, (this.#written++ & SEQUENCE_MASK) + 1);
  }
}

/** The receiver's fastboxes from one peer (the inbound region of the connection an endpoint made). */
export class InboundBoxes {
  readonly #words: Int32Array;
  readonly #boxes: BoxSlot[];
  readonly #mask: number;
  /** Messages taken. */
  #taken = 0;

  constructor(
    readonly ep: Endpoint,
    readonly link: PeerLink,
    region: Uint8Array,
  ) {
    ({ words: this.#words, boxes: this.#boxes } = boxesOf(region));
    this.#mask = this.#boxes.length - 1;
  }

  /**
   * The next message's box when it is there and every message the sender put on DAT before it has
   * arrived (MPI's order holds across the two ways); else undefined.
   */
  next(): BoxSlot | undefined {
    const box = this.#boxes[this.#taken & this.#mask];
    if (Atomics.load(this.#words, box.word) !== (this.#taken & SEQUENCE_MASK) + 1) return undefined;
    return this.#words[box.word + 1] <= this.link.datArrived ? box : undefined;
  }

  /** The box `next` gave is taken (its message is being handled). */
  advance(): void {
    this.#taken++;
  }
}
