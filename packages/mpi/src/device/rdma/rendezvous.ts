import { MemAccess, type Clock, type Lmr, type LmrTriplet, type Rmr, type RmrTriplet } from '@dapl/core';
import type { BufferSpan } from '../../adi/transfer.js';
import { packRange, unpackRange } from '../../datatype/index.js';
import type { RegistrationCache } from './registration-cache.js';

/**
 * Registered memory a rendezvous moves data from or into: the user's own buffer when its layout is
 * one block (no copy), else a packed copy (one copy, the price of a layout the transport cannot
 * address in one RMR).
 */
export interface RegisteredRegion {
  readonly lmr: Lmr;
  /** Offset of the data's first byte in the LMR. */
  readonly start: number;
  /** `length` bytes from `done` of the data, as an iov. */
  iov(done: number, length: number): readonly LmrTriplet[];
  /** A receive: unpack a packed copy into the user's buffer; returns the bytes copied (0 when direct). */
  finish(span: BufferSpan, length: number): number;
  /** Free a packed copy's registration. */
  release(): void;
}

class Direct implements RegisteredRegion {
  constructor(
    readonly lmr: Lmr,
    readonly start: number,
  ) {}
  iov(done: number, length: number): readonly LmrTriplet[] {
    return [{ lmr: this.lmr, offset: this.start + done, length }];
  }
  finish(): number {
    return 0;
  }
  release(): void {}
}

class Packed implements RegisteredRegion {
  readonly start = 0;
  constructor(readonly lmr: Lmr) {}
  iov(done: number, length: number): readonly LmrTriplet[] {
    return [{ lmr: this.lmr, offset: done, length }];
  }
  finish(span: BufferSpan, length: number): number {
    if (length > 0) unpackRange(span.program, span.count, span.bytes, span.offset, 0, this.lmr.bytes, 0, length);
    return length;
  }
  release(): void {
    if (!this.lmr.freed) this.lmr.free();
  }
}

/** Where the data of `span` can be addressed in place: one block of registered user memory. */
function direct(span: BufferSpan, cache: RegistrationCache): Direct | undefined {
  if (!span.program.contiguous) return undefined;
  const lmr = cache.lmrFor(span.bytes);
  return new Direct(lmr, span.bytes.byteOffset + span.offset + span.program.minOffset);
}

/** The sender's data, registered: in place, or packed (the copy charged to `clock`). */
export function sendRegion(span: BufferSpan, length: number, cache: RegistrationCache, clock: Clock): RegisteredRegion {
  const inPlace = direct(span, cache);
  if (inPlace !== undefined) return inPlace;
  const packed = new Uint8Array(length);
  packRange(span.program, span.count, span.bytes, span.offset, 0, packed, 0, length);
  clock.chargeCopy(length);
  return new Packed(cache.registerTemporary(packed));
}

/** Where a receive's data lands: in place, or a packed copy unpacked at the end. */
export function receiveRegion(span: BufferSpan, length: number, cache: RegistrationCache): RegisteredRegion {
  return direct(span, cache) ?? new Packed(cache.registerTemporary(new Uint8Array(length)));
}

/** A region exposed to the peer through an RMR. */
export interface Exposure {
  readonly region: RegisteredRegion;
  readonly rmr: Rmr;
  readonly triplet: RmrTriplet;
}

export function expose(region: RegisteredRegion, length: number, rmr: Rmr, access: number): Exposure {
  const triplet = rmr.bind(region.lmr, region.start, Math.max(length, 0), access);
  return { region, rmr, triplet };
}

export const READ_ACCESS = MemAccess.REMOTE_READ;
export const WRITE_ACCESS = MemAccess.REMOTE_WRITE;
