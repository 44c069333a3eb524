/**
 * Small byte helpers shared by the providers' wire codecs. All multi-byte integers are
 * little-endian. The Uint8Array forms work on a caller's slab at an offset without creating
 * a DataView, so a codec can write headers straight into a coalescing output buffer.
 */
import { timingSafeEqual } from 'node:crypto';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/** 2^64 - 1: the largest value a u64 field holds. */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;

const TWO_32 = 0x1_0000_0000;

function checkRange(bytes: DataView | Uint8Array, offset: number, width: number, argument: string): void {
  if (!Number.isInteger(offset) || offset < 0 || offset + width > bytes.byteLength) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `${argument} ${offset} does not leave ${width} bytes in a buffer of ${bytes.byteLength} (allowed 0..${bytes.byteLength - width})`,
      { argument },
    );
  }
}

function checkUnsigned(value: number, max: number, argument: string): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} ${value} is not an integer in 0..${max}`, {
      argument,
    });
  }
}

/** Reads a little-endian u16; throws `DatError` when fewer than 2 bytes remain at `offset`. */
export function readU16(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 2, 'offset');
  return bytes[offset] | (bytes[offset + 1] << 8);
}

/** Reads a little-endian u32 as a non-negative number; throws `DatError` when fewer than 4 bytes remain. */
export function readU32(bytes: Uint8Array, offset: number): number {
  checkRange(bytes, offset, 4, 'offset');
  return (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16)) + bytes[offset + 3] * 0x100_0000;
}

/** Writes a little-endian u16; throws `DatError` for a value or offset out of range. */
export function writeU16(bytes: Uint8Array, offset: number, value: number): void {
  checkRange(bytes, offset, 2, 'offset');
  checkUnsigned(value, 0xffff, 'value');
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = value >>> 8;
}

/** Writes a little-endian u32; throws `DatError` for a value or offset out of range. */
export function writeU32(bytes: Uint8Array, offset: number, value: number): void {
  checkRange(bytes, offset, 4, 'offset');
  checkUnsigned(value, 0xffff_ffff, 'value');
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >>> 8) & 0xff;
  bytes[offset + 2] = (value >>> 16) & 0xff;
  bytes[offset + 3] = value >>> 24;
}

/** Reads a little-endian u64 as a bigint; throws `DatError` when fewer than 8 bytes remain at `offset`. */
export function readU64(bytes: DataView | Uint8Array, offset: number): bigint {
  checkRange(bytes, offset, 8, 'offset');
  let lo: number;
  let hi: number;
  if (bytes instanceof DataView) {
    lo = bytes.getUint32(offset, true);
    hi = bytes.getUint32(offset + 4, true);
  } else {
    lo = readU32(bytes, offset);
    hi = readU32(bytes, offset + 4);
  }
  // The common all-zero field costs no bigint allocation.
  if (hi === 0 && lo === 0) return 0n;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Writes a little-endian u64; throws `DatError` for a value outside 0..2^64-1 or a bad offset. */
export function writeU64(bytes: DataView | Uint8Array, offset: number, value: bigint): void {
  checkRange(bytes, offset, 8, 'offset');
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `value ${String(value)} is not a bigint in 0..2^64-1`, {
      argument: 'value',
    });
  }
  const lo = Number(value & 0xffff_ffffn);
  const hi = Number(value >> 32n);
  if (bytes instanceof DataView) {
    bytes.setUint32(offset, lo, true);
    bytes.setUint32(offset + 4, hi, true);
  } else {
    writeU32(bytes, offset, lo);
    writeU32(bytes, offset + 4, hi);
  }
}

/** True when `value` is a safe integer that fits in a u32. */
export function isU32(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < TWO_32;
}

/** One new array holding the parts in order. */
export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.byteLength;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * Compares two byte strings in time that depends only on their length (for MACs and secrets).
 * Unlike `crypto.timingSafeEqual`, a length mismatch is simply `false`, not an exception.
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return timingSafeEqual(a, b);
}
