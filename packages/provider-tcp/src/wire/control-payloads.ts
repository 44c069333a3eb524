/**
 * Payloads of the connection set-up frames (binary, length-prefixed, bounded):
 *
 *   CHALLENGE  u8 version | 32 server nonce
 *   HELLO      u8 version | 32 client nonce | 32 proof | u32 connQual | u16 addressLen | address utf8
 *              | u16 privateDataLen | privateData
 *   ACCEPT     32 proof | u16 privateDataLen | privateData
 *   REJECT     32 proof | u16 privateDataLen | privateData   (version 2: version 1's REJECT had no proof)
 *
 * Encoders allocate (set-up only) and throw `DatError` on bad arguments; decoders take untrusted
 * bytes and return a value or a `FrameError`.
 */
import { DatError, DatStatus } from '@dapl/core';
import { FrameError } from '@dapl/core/provider-kit';
import { NONCE_SIZE, PROOF_SIZE } from './auth.js';
import { ByteReader } from './byte-reader.js';
import { CONTROL_PAYLOAD_LIMIT } from './header.js';

export const WIRE_VERSION = 2;

/** The longest IA address (utf8 bytes) a HELLO carries. */
export const MAX_ADDRESS_LENGTH = 255;

const HELLO_FIXED = 1 + NONCE_SIZE + PROOF_SIZE + 4 + 2 + 2;

/** The most private data any set-up frame carries: what fits in a HELLO with the longest address. */
export const MAX_PRIVATE_DATA_LENGTH = CONTROL_PAYLOAD_LIMIT - HELLO_FIXED - MAX_ADDRESS_LENGTH;

export interface Challenge {
  readonly version: number;
  readonly serverNonce: Uint8Array;
}

export interface Hello {
  readonly version: number;
  readonly clientNonce: Uint8Array;
  /** `helloProof(jobKey, serverNonce, clientNonce)`. */
  readonly proof: Uint8Array;
  readonly connQual: number;
  /** The client IA's address. */
  readonly address: string;
  readonly privateData: Uint8Array;
}

/** The server's answer to a HELLO, ACCEPT or REJECT: its proof, then its private data. */
interface Answer {
  readonly proof: Uint8Array;
  readonly privateData: Uint8Array;
}

/** `proof`: `acceptProof(jobKey, serverNonce, clientNonce)`. */
export type Accept = Answer;

/** `proof`: `rejectProof(jobKey, serverNonce, clientNonce)`: only a server of the job can turn a client away. */
export type Reject = Answer;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function checkBytes(value: Uint8Array, argument: string, length: number): void {
  if (!(value instanceof Uint8Array) || value.byteLength !== length) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a Uint8Array of ${length} bytes`, { argument });
  }
}

function checkPrivateData(value: Uint8Array | undefined, argument: string): Uint8Array {
  const data = value ?? new Uint8Array(0);
  if (!(data instanceof Uint8Array) || data.byteLength > MAX_PRIVATE_DATA_LENGTH) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `${argument} must be a Uint8Array of 0..${MAX_PRIVATE_DATA_LENGTH} bytes, got ${data instanceof Uint8Array ? data.byteLength : typeof data}`,
      { argument },
    );
  }
  return data;
}

function unsupportedVersion(what: string, version: number): FrameError {
  return new FrameError(`${what}: wire version ${version} not supported (supported: ${WIRE_VERSION})`);
}

/** A payload writer over an exactly sized new array. */
class PayloadWriter {
  readonly bytes: Uint8Array;
  private at = 0;

  constructor(length: number) {
    this.bytes = new Uint8Array(length);
  }

  u8(value: number): void {
    this.bytes[this.at++] = value;
  }

  u16(value: number): void {
    this.bytes[this.at++] = value & 0xff;
    this.bytes[this.at++] = value >>> 8;
  }

  u32(value: number): void {
    for (let i = 0; i < 4; i++) this.bytes[this.at++] = (value >>> (8 * i)) & 0xff;
  }

  raw(value: Uint8Array): void {
    this.bytes.set(value, this.at);
    this.at += value.byteLength;
  }
}

export function encodeChallenge(serverNonce: Uint8Array): Uint8Array {
  checkBytes(serverNonce, 'serverNonce', NONCE_SIZE);
  const w = new PayloadWriter(1 + NONCE_SIZE);
  w.u8(WIRE_VERSION);
  w.raw(serverNonce);
  return w.bytes;
}

export function decodeChallenge(bytes: Uint8Array): Challenge | FrameError {
  const r = new ByteReader(bytes, 'CHALLENGE');
  const version = r.u8('version');
  const serverNonce = r.bytes(NONCE_SIZE, 'server nonce');
  r.finish();
  if (r.error) return r.error;
  if (version !== WIRE_VERSION) return unsupportedVersion('CHALLENGE', version);
  return { version, serverNonce };
}

export function encodeHello(hello: Omit<Hello, 'version' | 'privateData'> & { privateData?: Uint8Array }): Uint8Array {
  checkBytes(hello.clientNonce, 'hello.clientNonce', NONCE_SIZE);
  checkBytes(hello.proof, 'hello.proof', PROOF_SIZE);
  const { connQual } = hello;
  if (!Number.isInteger(connQual) || connQual < 0 || connQual > 0xffff_ffff) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `hello.connQual ${connQual} is not an integer in 0..4294967295`, {
      argument: 'hello.connQual',
    });
  }
  const address = typeof hello.address === 'string' ? utf8Encoder.encode(hello.address) : undefined;
  if (address === undefined || address.byteLength > MAX_ADDRESS_LENGTH) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `hello.address must be a string of at most ${MAX_ADDRESS_LENGTH} utf8 bytes, got ${address?.byteLength ?? typeof hello.address}`,
      { argument: 'hello.address' },
    );
  }
  const privateData = checkPrivateData(hello.privateData, 'hello.privateData');
  const w = new PayloadWriter(HELLO_FIXED + address.byteLength + privateData.byteLength);
  w.u8(WIRE_VERSION);
  w.raw(hello.clientNonce);
  w.raw(hello.proof);
  w.u32(connQual);
  w.u16(address.byteLength);
  w.raw(address);
  w.u16(privateData.byteLength);
  w.raw(privateData);
  return w.bytes;
}

export function decodeHello(bytes: Uint8Array): Hello | FrameError {
  const r = new ByteReader(bytes, 'HELLO');
  const version = r.u8('version');
  const clientNonce = r.bytes(NONCE_SIZE, 'client nonce');
  const proof = r.bytes(PROOF_SIZE, 'proof');
  const connQual = r.u32('connQual');
  const addressLength = r.u16('address length');
  if (addressLength > MAX_ADDRESS_LENGTH) r.fail(`address length ${addressLength} exceeds ${MAX_ADDRESS_LENGTH}`);
  const addressBytes = r.bytes(addressLength, 'address');
  const privateDataLength = r.u16('private data length');
  const privateData = r.bytes(privateDataLength, 'private data');
  r.finish();
  if (r.error) return r.error;
  if (version !== WIRE_VERSION) return unsupportedVersion('HELLO', version);
  let address: string;
  try {
    address = utf8Decoder.decode(addressBytes);
  } catch {
    return new FrameError('HELLO: address is not valid utf8');
  }
  return { version, clientNonce, proof, connQual, address, privateData };
}

/** ACCEPT and REJECT alike (private data optional on the way out). */
function encodeAnswer(answer: { proof: Uint8Array; privateData?: Uint8Array }, name: 'accept' | 'reject'): Uint8Array {
  checkBytes(answer.proof, `${name}.proof`, PROOF_SIZE);
  const privateData = checkPrivateData(answer.privateData, `${name}.privateData`);
  const w = new PayloadWriter(PROOF_SIZE + 2 + privateData.byteLength);
  w.raw(answer.proof);
  w.u16(privateData.byteLength);
  w.raw(privateData);
  return w.bytes;
}

function decodeAnswer(bytes: Uint8Array, frame: 'ACCEPT' | 'REJECT'): Answer | FrameError {
  const r = new ByteReader(bytes, frame);
  const proof = r.bytes(PROOF_SIZE, 'proof');
  const privateDataLength = r.u16('private data length');
  const privateData = r.bytes(privateDataLength, 'private data');
  r.finish();
  return r.error ?? { proof, privateData };
}

export function encodeAccept(accept: Omit<Accept, 'privateData'> & { privateData?: Uint8Array }): Uint8Array {
  return encodeAnswer(accept, 'accept');
}

export function decodeAccept(bytes: Uint8Array): Accept | FrameError {
  return decodeAnswer(bytes, 'ACCEPT');
}

export function encodeReject(reject: Omit<Reject, 'privateData'> & { privateData?: Uint8Array }): Uint8Array {
  return encodeAnswer(reject, 'reject');
}

export function decodeReject(bytes: Uint8Array): Reject | FrameError {
  return decodeAnswer(bytes, 'REJECT');
}
