import { MemAccess, type Clock, type Lmr, type LmrTriplet, type PinnedRegistration, type RegistrationCache, type Rmr, type RmrTriplet } from '@dapl/core';
import type { BufferSpan } from '../../adi/transfer.js';
import { packRange, segments, unpackRange } from '../../datatype/index.js';

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
  /** The transfer is over: free a packed copy's registration, or unpin the user buffer's (once per region handed out). */
  release(): void;
}

/** The user's buffer, pinned in the registration cache while a transfer uses it. */
interface Pinned {
  readonly cache: RegistrationCache;
  readonly registration: PinnedRegistration;
}

class Direct implements RegisteredRegion {
  // The last iov handed out, handed out again for the same range (iovs are never modified).
  #done = -1;
  #length = -1;
  #iov: readonly LmrTriplet[] = [];
  constructor(
    readonly lmr: Lmr,
    readonly start: number,
    /** Undefined for memory the caller keeps registered (an exposed window). */
    readonly pinned?: Pinned,
  ) {}
  iov(done: number, length: number): readonly LmrTriplet[] {
    if (done !== this.#done || length !== this.#length) {
      this.#iov = [{ lmr: this.lmr, offset: this.start + done, length }];
      this.#done = done;
      this.#length = length;
    }
    return this.#iov;
  }
  finish(): number {
    return 0;
  }
  release(): void {
    if (this.pinned !== undefined) this.pinned.cache.unpin(this.pinned.registration);
  }
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

/**
 * A non-contiguous layout addressed in place as an iov of its blocks (a gathering send, a
 * scattering receive): no copy. It cannot be exposed through one RMR (`start` is meaningless).
 */
class Segmented implements RegisteredRegion {
  readonly start = -1;
  readonly #prefix: Float64Array;

  constructor(
    private readonly pinned: Pinned,
    private readonly offsets: readonly number[],
    private readonly lengths: readonly number[],
  ) {
    this.#prefix = new Float64Array(lengths.length + 1);
    for (let i = 0; i < lengths.length; i++) this.#prefix[i + 1] = this.#prefix[i] + lengths[i];
  }

  iov(done: number, length: number): readonly LmrTriplet[] {
    const iov: LmrTriplet[] = [];
    let i = 0;
    while (this.#prefix[i + 1] <= done) i++;
    for (let left = length, skip = done - this.#prefix[i]; left > 0; i++, skip = 0) {
      const n = Math.min(this.lengths[i] - skip, left);
      iov.push({ lmr: this.lmr, offset: this.offsets[i] + skip, length: n });
      left -= n;
    }
    return iov;
  }

  get lmr(): Lmr {
    return this.pinned.registration.lmr;
  }

  finish(): number {
    return 0;
  }

  release(): void {
    this.pinned.cache.unpin(this.pinned.registration);
  }
}

/**
 * Where the data of `span` can be addressed in place: one block of registered user memory, pinned
 * until the region is released — `last` again (pinned once more) when it addresses the same block.
 */
function direct(span: BufferSpan, cache: RegistrationCache, last?: Direct): Direct | undefined {
  if (!span.program.contiguous) return undefined;
  const registration = cache.pin(span.bytes);
  const start = inPlaceStart(span);
  return last !== undefined && last.pinned?.registration === registration && last.start === start ? last : new Direct(registration.lmr, start, { cache, registration });
}

/** Registered memory addressed in place from `start` in `lmr` (no copy to unpack, nothing to free). */
export function inPlaceRegion(lmr: Lmr, start: number): RegisteredRegion {
  return new Direct(lmr, start);
}

/** Offset of a contiguous span's first byte in the LMR registered for its whole ArrayBuffer. */
export function inPlaceStart(span: BufferSpan): number {
  return span.bytes.byteOffset + span.offset + span.program.minOffset;
}

/** A non-contiguous span as at most `maxIov` in-place segments, or undefined. */
function segmented(span: BufferSpan, cache: RegistrationCache, maxIov: number): Segmented | undefined {
  if (span.program.contiguous) return undefined;
  const found = segments(span.program, span.count, span.bytes.byteOffset + span.offset, maxIov);
  return found === undefined ? undefined : new Segmented({ cache, registration: cache.pin(span.bytes) }, found.offsets, found.lengths);
}

/**
 * The sender's data as the source of RDMA writes: in place, gathered by an iov of at most `maxIov`
 * segments, or packed (the copy charged to `clock`). The last in-place region is handed out again
 * while the same buffer is sent (a window of isends usually sends one buffer), so such a write
 * allocates neither a region nor an iov.
 */
export class WriteSources {
  #last: Direct | undefined;
  constructor(
    private readonly cache: RegistrationCache,
    private readonly maxIov: number,
    private readonly clock: Clock,
  ) {}

  of(span: BufferSpan, length: number): RegisteredRegion {
    const inPlace = direct(span, this.cache, this.#last);
    if (inPlace !== undefined) return (this.#last = inPlace);
    return segmented(span, this.cache, this.maxIov) ?? sendRegion(span, length, this.cache, this.clock);
  }
}

/** The receiver's data as the target of RDMA reads: in place, scattered by an iov, or a packed copy. */
export function scatterRegion(span: BufferSpan, length: number, cache: RegistrationCache, maxIov: number): RegisteredRegion {
  return direct(span, cache) ?? segmented(span, cache, maxIov) ?? receiveRegion(span, length, cache);
}

/** The sender's data as one exposable block: in place, or packed (the copy charged to `clock`). */
export function sendRegion(span: BufferSpan, length: number, cache: RegistrationCache, clock: Clock): RegisteredRegion {
  const inPlace = direct(span, cache);
  if (inPlace !== undefined) return inPlace;
  const packed = new Uint8Array(length);
  packRange(span.program, span.count, span.bytes, span.offset, 0, packed, 0, length);
  clock.chargeCopy(length);
  return new Packed(cache.registerTemporary(packed));
}

/** A receive's data as one exposable block: in place, or a packed copy unpacked at the end. */
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
