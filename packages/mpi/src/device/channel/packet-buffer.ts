import { MemAccess, type Endpoint, type Lmr, type LmrTriplet, type PinnedRegistration, type ProtectionZone } from '@dapl/core';
import type { KeptPacket } from './channel.js';

/**
 * One pre-registered buffer of the DAT channel: a receive buffer posted for a peer (a packet of up
 * to `capacity` bytes lands in it), or a send buffer holding a frame header and a control packet.
 */
export class PacketBuffer implements KeptPacket {
  readonly view: DataView;
  readonly bytes: Uint8Array;
  /** Send buffers: the frame alone, or the header followed by user data (two entries). */
  readonly #one: [MutableTriplet];
  readonly #two: [MutableTriplet, MutableTriplet];
  /** Receive buffers: the endpoint they are posted on and the peer whose frames fill them. */
  ep: Endpoint | undefined = undefined;
  from = -1;
  /** Send buffers carrying data: the registration of the data, and what to call when the last frame of a send has left. */
  pinned: PinnedRegistration | undefined = undefined;
  onSent: ((error?: Error) => void) | undefined = undefined;

  constructor(
    readonly lmr: Lmr,
    readonly offset: number,
    readonly capacity: number,
  ) {
    this.view = new DataView(lmr.bytes.buffer, lmr.bytes.byteOffset + offset, capacity);
    this.bytes = new Uint8Array(lmr.bytes.buffer, lmr.bytes.byteOffset + offset, capacity);
    this.#one = [{ lmr, offset, length: capacity }];
    this.#two = [{ lmr, offset, length: capacity }, { lmr, offset: 0, length: 0 }];
  }

  /** This buffer's first `length` bytes as an iov. */
  post(length: number): readonly LmrTriplet[] {
    this.#one[0].length = length;
    return this.#one;
  }

  /** This buffer's first `headerLength` bytes, then `length` bytes of `data` from `at` (registered as `lmr`). */
  postWith(headerLength: number, lmr: Lmr, data: Uint8Array, at: number, length: number): readonly LmrTriplet[] {
    this.#two[0].length = headerLength;
    const second = this.#two[1];
    second.lmr = lmr;
    second.offset = data.byteOffset + at;
    second.length = length;
    return this.#two;
  }
}

interface MutableTriplet {
  lmr: Lmr;
  offset: number;
  length: number;
}

/** `count` buffers of `capacity` bytes in one registered region (one registration, not one per buffer). */
export function makePacketBuffers(pz: ProtectionZone, count: number, capacity: number): PacketBuffer[] {
  const lmr = pz.registerLmr(new Uint8Array(count * capacity), MemAccess.LOCAL);
  const buffers: PacketBuffer[] = [];
  for (let i = 0; i < count; i++) buffers.push(new PacketBuffer(lmr, i * capacity, capacity));
  return buffers;
}
