/**
 * The fixed 40-byte little-endian header that starts every frame:
 *
 *   0 u8 type | 1 u8 flags | 2 u16 status | 4 u32 payloadLength | 8 u32 seq | 12 u32 ack
 *  16 u32 aux | 20 u32 reserved (0) | 24 u64 rmrContext | 32 u64 targetOffset
 */
import { DatError, DatStatus } from '@dapl/core';
import { FrameError, U64_MAX } from '@dapl/core/provider-kit';
import { FrameType, isControlFrame, isFrameType, KNOWN_FLAGS, mustHaveNoPayload } from './frame-type.js';
import { isNakStatus } from './nak-status.js';

export const HEADER_SIZE = 40;

/** The largest control-frame payload (CHALLENGE, HELLO, ACCEPT, REJECT) either side accepts. */
export const CONTROL_PAYLOAD_LIMIT = 4096;

const U32_MAX = 0xffff_ffff;

export interface TcpFrameHeader {
  readonly type: FrameType;
  readonly flags: number;
  /** NAK: its reason code (`NakStatus`); else 0. */
  readonly status: number;
  readonly payloadLength: number;
  readonly seq: number;
  readonly ack: number;
  /** RDMA_WRITE_IMM: the immediate; READ_REQ: the length to read; else 0. */
  readonly aux: number;
  readonly rmrContext: bigint;
  readonly targetOffset: bigint;
}

/** Header fields to encode; omitted ones are 0. */
export type HeaderFields = Pick<TcpFrameHeader, 'type'> & Partial<Omit<TcpFrameHeader, 'type'>>;

/** What the receiving side accepts. */
export interface WireLimits {
  /** The largest data payload (and READ_REQ length): the provider's max message / RDMA size. */
  readonly maxPayload: number;
}

function badField(name: string, value: unknown, allowed: string): DatError {
  return new DatError(DatStatus.INVALID_PARAMETER, `fields.${name} ${String(value)} is not ${allowed}`, {
    argument: `fields.${name}`,
  });
}

function checkU32(name: string, value: number, max = U32_MAX): number {
  if (!Number.isInteger(value) || value < 0 || value > max) throw badField(name, value, `an integer in 0..${max}`);
  return value;
}

function checkU64(name: string, value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > U64_MAX) throw badField(name, value, 'a bigint in 0..2^64-1');
  return value;
}

function put32(target: Uint8Array, at: number, value: number): void {
  target[at] = value & 0xff;
  target[at + 1] = (value >>> 8) & 0xff;
  target[at + 2] = (value >>> 16) & 0xff;
  target[at + 3] = value >>> 24;
}

/**
 * One 8-byte scratch for the u64 fields: a DataView's BigInt accessors split and join the halves
 * natively, where BigInt shifts and masks allocate (half the time per field; bench/RESULTS.md,
 * session 18).
 */
const u64Scratch = new ArrayBuffer(8);
const u64View = new DataView(u64Scratch);
const u64Bytes = new Uint8Array(u64Scratch);

function put64(target: Uint8Array, at: number, value: bigint): void {
  if (value === 0n) {
    // Most frames carry no RMR fields.
    put32(target, at, 0);
    put32(target, at + 4, 0);
    return;
  }
  u64View.setBigUint64(0, value, true);
  for (let i = 0; i < 8; i++) target[at + i] = u64Bytes[i];
}

/**
 * The hot-path writer: positional fields, no checks, no allocation. Callers pass values the
 * provider itself produced (in range by construction); `encodeHeader` is the checked form.
 */
export function writeHeader(
  target: Uint8Array,
  offset: number,
  type: FrameType,
  flags: number,
  status: number,
  payloadLength: number,
  seq: number,
  ack: number,
  aux: number,
  rmrContext: bigint,
  targetOffset: bigint,
): number {
  target[offset] = type;
  target[offset + 1] = flags;
  target[offset + 2] = status & 0xff;
  target[offset + 3] = status >>> 8;
  put32(target, offset + 4, payloadLength);
  put32(target, offset + 8, seq);
  put32(target, offset + 12, ack);
  put32(target, offset + 16, aux);
  put32(target, offset + 20, 0);
  put64(target, offset + 24, rmrContext);
  put64(target, offset + 32, targetOffset);
  return offset + HEADER_SIZE;
}

/**
 * Writes a header into caller memory (e.g. a coalescing output slab) without allocating.
 * Returns the offset just past the header. Throws `DatError` for a field or offset out of range.
 */
export function encodeHeader(target: Uint8Array, offset: number, fields: HeaderFields): number {
  if (!Number.isInteger(offset) || offset < 0 || offset + HEADER_SIZE > target.byteLength) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `offset ${offset} leaves no room for a ${HEADER_SIZE}-byte header in ${target.byteLength} bytes (allowed 0..${target.byteLength - HEADER_SIZE})`,
      { argument: 'offset' },
    );
  }
  if (!isFrameType(fields.type)) throw badField('type', fields.type, `a FrameType (1..${FrameType.DISCONNECT})`);
  const flags = fields.flags ?? 0;
  if (!Number.isInteger(flags) || (flags & ~KNOWN_FLAGS) !== 0 || flags < 0 || flags > 0xff) {
    throw badField('flags', flags, `a combination of the bits 0x${KNOWN_FLAGS.toString(16)}`);
  }
  const status = checkU32('status', fields.status ?? 0, 0xffff);
  const payloadLength = checkU32('payloadLength', fields.payloadLength ?? 0);
  const seq = checkU32('seq', fields.seq ?? 0);
  const ack = checkU32('ack', fields.ack ?? 0);
  const aux = checkU32('aux', fields.aux ?? 0);
  const rmrContext = checkU64('rmrContext', fields.rmrContext ?? 0n);
  const targetOffset = checkU64('targetOffset', fields.targetOffset ?? 0n);

  return writeHeader(target, offset, fields.type, flags, status, payloadLength, seq, ack, aux, rmrContext, targetOffset);
}

/** Checks `limits` once, when a decoder is configured. */
export function checkWireLimits(limits: WireLimits): void {
  const max = limits?.maxPayload;
  if (!Number.isInteger(max) || max < 0 || max > U32_MAX) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `limits.maxPayload ${String(max)} is not an integer in 0..${U32_MAX}`, {
      argument: 'limits.maxPayload',
    });
  }
}

/**
 * Parses and validates the first HEADER_SIZE bytes of `bytes` (from an untrusted peer).
 * Returns a FrameError, never throws, for anything this version does not accept.
 */
export function decodeHeader(bytes: Uint8Array, limits: WireLimits): TcpFrameHeader | FrameError {
  const header = emptyHeader();
  const error = decodeHeaderInto(bytes, limits, header);
  return error ?? header;
}

/** Unchecked little-endian reads for the decoder, which checked the length once. */
function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16)) + bytes[at + 3] * 0x100_0000;
}

function u64(bytes: Uint8Array, at: number): bigint {
  // Most frames carry no RMR fields.
  if (u32(bytes, at) === 0 && u32(bytes, at + 4) === 0) return 0n;
  for (let i = 0; i < 8; i++) u64Bytes[i] = bytes[at + i];
  return u64View.getBigUint64(0, true);
}

/** A header object for `decodeHeaderInto` to fill. */
export function emptyHeader(): MutableTcpFrameHeader {
  return { type: FrameType.ACK, flags: 0, status: 0, payloadLength: 0, seq: 0, ack: 0, aux: 0, rmrContext: 0n, targetOffset: 0n };
}

export type MutableTcpFrameHeader = { -readonly [K in keyof TcpFrameHeader]: TcpFrameHeader[K] };

/**
 * `decodeHeader` into a caller-owned object (one per connection: a decoder holds at most one
 * header at a time), so the receive path allocates nothing per frame. Returns a FrameError, or
 * undefined when `target` now holds the header.
 */
export function decodeHeaderInto(bytes: Uint8Array, limits: WireLimits, target: MutableTcpFrameHeader, offset = 0): FrameError | undefined {
  if (bytes.byteLength - offset < HEADER_SIZE) {
    return new FrameError(`header has ${bytes.byteLength - offset} bytes, needs ${HEADER_SIZE}`);
  }
  const type = bytes[offset];
  if (!isFrameType(type)) return new FrameError(`unknown frame type ${type} (allowed 1..${FrameType.DISCONNECT})`);
  const name = FrameType[type];
  const flags = bytes[offset + 1];
  if ((flags & ~KNOWN_FLAGS) !== 0) {
    return new FrameError(`${name}: unknown flag bits 0x${flags.toString(16)} (allowed mask 0x${KNOWN_FLAGS.toString(16)})`);
  }
  const status = bytes[offset + 2] | (bytes[offset + 3] << 8);
  if (type === FrameType.NAK ? !isNakStatus(status) : status !== 0) {
    const allowed = type === FrameType.NAK ? 'NAK codes 1..4' : 'must be 0';
    return new FrameError(`${name}: status ${status} not allowed (${allowed})`);
  }
  const reserved = u32(bytes, offset + 20);
  if (reserved !== 0) return new FrameError(`${name}: reserved field is ${reserved}, must be 0`);

  const payloadLength = u32(bytes, offset + 4);
  const maxPayload = mustHaveNoPayload(type) ? 0 : isControlFrame(type) ? CONTROL_PAYLOAD_LIMIT : limits.maxPayload;
  if (payloadLength > maxPayload) {
    return new FrameError(`${name}: payload length ${payloadLength} exceeds the limit ${maxPayload}`);
  }
  const aux = u32(bytes, offset + 16);
  if (type === FrameType.READ_REQ && aux > limits.maxPayload) {
    return new FrameError(`READ_REQ: read length ${aux} exceeds the limit ${limits.maxPayload}`);
  }
  target.type = type;
  target.flags = flags;
  target.status = status;
  target.payloadLength = payloadLength;
  target.seq = u32(bytes, offset + 8);
  target.ack = u32(bytes, offset + 12);
  target.aux = aux;
  target.rmrContext = u64(bytes, offset + 24);
  target.targetOffset = u64(bytes, offset + 32);
  return undefined;
}

/** A whole frame in a new array: header (payloadLength filled in) then payload. For set-up frames and tests. */
export function encodeFrame(
  fields: Omit<HeaderFields, 'payloadLength'>,
  payload: Uint8Array = new Uint8Array(0),
): Uint8Array {
  if (!(payload instanceof Uint8Array)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, 'payload must be a Uint8Array', { argument: 'payload' });
  }
  const frame = new Uint8Array(HEADER_SIZE + payload.byteLength);
  encodeHeader(frame, 0, { ...fields, payloadLength: payload.byteLength });
  frame.set(payload, HEADER_SIZE);
  return frame;
}
