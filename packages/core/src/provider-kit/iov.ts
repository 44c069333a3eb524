import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { Iov, LmrTriplet } from '../dat/memory.js';
import { isKitLmr, type KitPz } from './memory.js';
import { describe } from './validate.js';

/**
 * Check an iov against its LMRs: handles alive and of `pz`, `need` rights (LOCAL_READ for
 * sources, LOCAL_WRITE for sinks), every segment inside its LMR. Returns the total length.
 */
export function checkIov(iov: unknown, argument: string, pz: KitPz, need: number, maxIov: number): number {
  // Used where the segments are read at once (LAPI active messages): checked in place, no copy.
  const segments = requireIovArray(iov, argument, maxIov);
  let total = 0;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const fault = segmentFault(seg, pz, need);
    if (fault !== Fault.NONE) throw segmentError(fault, `${argument}[${i}]`, seg, need);
    total += (seg as LmrTriplet).length;
  }
  return total;
}

/**
 * Check an iov as `checkIov` does and return a copy made from the values it checked: the provider
 * reads the segments later (when the data moves), and once a post has returned the caller's array
 * and segment objects are its own again (uDAPL copies them into the work request). Without the
 * copy a segment changed after the post would be used unchecked: another LMR, its rights, bounds.
 */
export function takeIov(iov: unknown, argument: string, pz: KitPz, need: number, maxIov: number): LmrTriplet[] {
  const segments = requireIovArray(iov, argument, maxIov);
  const taken: LmrTriplet[] = new Array(segments.length);
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    // Each field read once, into the copy, and the copy checked.
    const copy = typeof seg === 'object' && seg !== null ? { lmr: (seg as LmrTriplet).lmr, offset: (seg as LmrTriplet).offset, length: (seg as LmrTriplet).length } : seg;
    const fault = segmentFault(copy, pz, need);
    if (fault !== Fault.NONE) throw segmentError(fault, `${argument}[${i}]`, copy, need);
    taken[i] = copy as LmrTriplet;
  }
  return taken;
}

/** `iov` as an array of at most `maxIov` entries (each still to be checked). */
function requireIovArray(iov: unknown, argument: string, maxIov: number): readonly unknown[] {
  if (!Array.isArray(iov)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be an array of { lmr, offset, length }, got ${describe(iov)}`, { argument });
  }
  if (iov.length > maxIov) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} has ${iov.length} segments; at most ${maxIov} allowed`, { argument });
  }
  return iov;
}

/** The bytes an iov covers. */
export function iovLength(iov: readonly LmrTriplet[]): number {
  let total = 0;
  for (let i = 0; i < iov.length; i++) total += iov[i].length;
  return total;
}

/** What can be wrong with one segment of an iov. */
const enum Fault {
  NONE,
  NOT_A_SEGMENT,
  NOT_AN_LMR,
  FREED,
  OTHER_ZONE,
  RIGHTS,
  OFFSET,
  LENGTH,
  OUTSIDE,
}

/** The first thing wrong with a segment (checked per segment per post, so it allocates nothing). */
function segmentFault(seg: unknown, pz: KitPz, need: number): Fault {
  if (typeof seg !== 'object' || seg === null) return Fault.NOT_A_SEGMENT;
  const { lmr, offset, length } = seg as { lmr: unknown; offset: unknown; length: unknown };
  if (!isKitLmr(lmr)) return Fault.NOT_AN_LMR;
  if (lmr.freed) return Fault.FREED;
  if (lmr.pz !== pz) return Fault.OTHER_ZONE;
  if ((lmr.access & need) !== need) return Fault.RIGHTS;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return Fault.OFFSET;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return Fault.LENGTH;
  if (offset + length > lmr.length) return Fault.OUTSIDE;
  return Fault.NONE;
}

/** The error for segment `name` (`iov[2]`) with `fault`; the name is built only here, on an error. */
function segmentError(fault: Fault, name: string, seg: unknown, need: number): DatError {
  const { lmr, offset, length } = (seg ?? {}) as { lmr: { access: number; length: number }; offset: number; length: number };
  switch (fault) {
    case Fault.NOT_A_SEGMENT:
      return new DatError(DatStatus.INVALID_PARAMETER, `${name} must be { lmr, offset, length }, got ${describe(seg)}`, { argument: name });
    case Fault.NOT_AN_LMR:
      return new DatError(DatStatus.INVALID_HANDLE, `${name}.lmr must be an LMR of this IA, got ${describe(lmr)}`, { argument: `${name}.lmr`, subtype: 'DAT_INVALID_HANDLE_LMR' });
    case Fault.FREED:
      return new DatError(DatStatus.INVALID_HANDLE, `${name}.lmr has been freed`, { argument: `${name}.lmr`, subtype: 'DAT_INVALID_HANDLE_LMR' });
    case Fault.OTHER_ZONE:
      return new DatError(DatStatus.PROTECTION_VIOLATION, `${name}.lmr belongs to another protection zone than the endpoint`, { argument: `${name}.lmr` });
    case Fault.RIGHTS:
      return new DatError(DatStatus.PRIVILEGES_VIOLATION, `${name}.lmr lacks the local right 0x${need.toString(16)} (registered with 0x${lmr.access.toString(16)})`, { argument: `${name}.lmr` });
    case Fault.OFFSET:
      return new DatError(DatStatus.INVALID_PARAMETER, `${name}.offset must be an integer >= 0, got ${describe(offset)}`, { argument: `${name}.offset` });
    case Fault.LENGTH:
      return new DatError(DatStatus.INVALID_PARAMETER, `${name}.length must be an integer >= 0, got ${describe(length)}`, { argument: `${name}.length` });
    default:
      return new DatError(DatStatus.PROTECTION_VIOLATION, `${name} [${offset}, ${offset + length}) lies outside its LMR of ${lmr.length} bytes`, { argument: name });
  }
}

/**
 * Scatters incoming bytes into an iov in order, as pieces arrive (a stream's chunks or a
 * whole message). `write` returns how many bytes were placed; the rest did not fit.
 */
export class IovWriter {
  private segment = 0;
  private within = 0;
  private placed = 0;

  constructor(private iov: Iov) {}

  /** Start over on another iov (a writer is reused per connection, not allocated per message). */
  reset(iov: Iov): void {
    this.iov = iov;
    this.segment = 0;
    this.within = 0;
    this.placed = 0;
  }

  get written(): number {
    return this.placed;
  }

  /** Place `piece` at the current position; returns the bytes placed (fewer once the iov is full). */
  write(piece: Uint8Array): number {
    let from = 0;
    while (from < piece.length && this.segment < this.iov.length) {
      const seg = this.iov[this.segment];
      const room = seg.length - this.within;
      if (room === 0) {
        this.segment++;
        this.within = 0;
        continue;
      }
      const n = Math.min(room, piece.length - from);
      seg.lmr.bytes.set(from === 0 && n === piece.length ? piece : piece.subarray(from, from + n), seg.offset + this.within);
      this.within += n;
      from += n;
    }
    this.placed += from;
    return from;
  }
}

/** Copy `length` bytes from a source iov into a destination iov (in-memory providers). */
export function copyIov(from: Iov, to: Iov, length: number): number {
  const writer = new IovWriter(to);
  let left = length;
  for (const seg of from) {
    if (left === 0) break;
    const n = Math.min(seg.length, left);
    const placed = writer.write(seg.lmr.bytes.subarray(seg.offset, seg.offset + n));
    left -= placed;
    if (placed < n) break;
  }
  return length - left;
}


/** Copy the iov's bytes, in order, into `dest` starting at `at` (the caller checked the room). */
export function gatherInto(iov: Iov, dest: Uint8Array, at: number): number {
  let pos = at;
  for (const seg of iov) {
    dest.set(seg.lmr.bytes.subarray(seg.offset, seg.offset + seg.length), pos);
    pos += seg.length;
  }
  return pos - at;
}
