import { describe, expect, it } from 'vitest';
import { DatStatus, isDatError } from '@dapl/core';
import { isFrameError } from '@dapl/core/provider-kit';
import {
  acceptProof,
  decodeAccept,
  decodeChallenge,
  decodeHello,
  decodeReject,
  encodeAccept,
  encodeChallenge,
  encodeHello,
  encodeReject,
  helloProof,
  MAX_ADDRESS_LENGTH,
  MAX_PRIVATE_DATA_LENGTH,
  newNonce,
  NONCE_SIZE,
  verifyAcceptProof,
  verifyHelloProof,
  WIRE_VERSION,
} from '../src/wire/index.js';
import { createHmac } from 'node:crypto';
import { seededRandom as mulberry32 } from '@dapl/core/testing';


const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
const serverNonce = fill(NONCE_SIZE, 0x11);
const clientNonce = fill(NONCE_SIZE, 0x22);
const jobKey = new TextEncoder().encode('job-secret');

function errorOf(result: unknown): string {
  if (!isFrameError(result)) throw new Error('expected a FrameError');
  return result.message;
}

function datErrorArgument(call: () => unknown): string | undefined {
  try {
    call();
  } catch (error) {
    if (isDatError(error, DatStatus.INVALID_PARAMETER)) return error.argument;
    throw error;
  }
  return undefined;
}

const decoders = [decodeChallenge, decodeHello, decodeAccept, decodeReject] as const;

describe('control payloads', () => {
  const hello = {
    clientNonce,
    proof: fill(32, 0x33),
    connQual: 0xfedc_ba98,
    address: 'node-ü.example:1234',
    privateData: Uint8Array.of(1, 2, 3),
  };

  it('encode CHALLENGE and HELLO byte-exactly', () => {
    expect(Buffer.from(encodeChallenge(serverNonce)).toString('hex')).toBe('02' + '11'.repeat(32));
    const bytes = encodeHello({ ...hello, address: 'ab', privateData: Uint8Array.of(9) });
    expect(Buffer.from(bytes).toString('hex')).toBe(
      '02' + '22'.repeat(32) + '33'.repeat(32) + '98badcfe' + '0200' + '6162' + '0100' + '09',
    );
  });

  it('round-trip every set-up payload', () => {
    expect(decodeChallenge(encodeChallenge(serverNonce))).toEqual({ version: WIRE_VERSION, serverNonce });
    expect(decodeHello(encodeHello(hello))).toEqual({ version: WIRE_VERSION, ...hello });
    const longest = { ...hello, address: 'x'.repeat(MAX_ADDRESS_LENGTH), privateData: fill(MAX_PRIVATE_DATA_LENGTH, 5) };
    expect(encodeHello(longest).length).toBe(4096);
    expect(decodeHello(encodeHello(longest))).toEqual({ version: WIRE_VERSION, ...longest });
    expect(decodeHello(encodeHello({ ...hello, privateData: undefined }))).toMatchObject({ privateData: new Uint8Array(0) });
    const accept = { proof: fill(32, 0x44), privateData: Uint8Array.of(7, 7) };
    expect(decodeAccept(encodeAccept(accept))).toEqual(accept);
    const reject = { proof: fill(32, 0x55), privateData: Uint8Array.of(8) };
    expect(decodeReject(encodeReject(reject))).toEqual(reject);
    expect(decodeReject(encodeReject({ proof: reject.proof }))).toEqual({ proof: reject.proof, privateData: new Uint8Array(0) });
  });

  it('decode values that do not alias the input', () => {
    const bytes = encodeAccept({ proof: fill(32, 1), privateData: Uint8Array.of(2) });
    const accept = decodeAccept(bytes);
    bytes.fill(0);
    expect(accept).toEqual({ proof: fill(32, 1), privateData: Uint8Array.of(2) });
  });

  it('return an error for every truncation and for trailing bytes', () => {
    const valid = [
      encodeChallenge(serverNonce),
      encodeHello(hello),
      encodeAccept({ proof: fill(32, 1), privateData: Uint8Array.of(1, 2) }),
      encodeReject({ proof: fill(32, 2), privateData: Uint8Array.of(1, 2) }),
    ];
    valid.forEach((bytes, i) => {
      const decode = decoders[i];
      expect(isFrameError(decode(bytes))).toBe(false);
      for (let cut = 0; cut < bytes.length; cut++) {
        expect(errorOf(decode(bytes.subarray(0, cut)))).toMatch(/truncated at/);
      }
      expect(errorOf(decode(Uint8Array.of(...bytes, 0)))).toMatch(/1 unexpected trailing bytes/);
    });
  });

  it('reject bad versions, overlong addresses and invalid utf8', () => {
    const challenge = encodeChallenge(serverNonce);
    challenge[0] = 1;
    expect(errorOf(decodeChallenge(challenge))).toMatch(/wire version 1 not supported/);
    const helloBytes = encodeHello({ ...hello, address: 'ab', privateData: undefined });
    const addressLengthAt = 1 + 32 + 32 + 4;
    const badVersion = helloBytes.slice();
    badVersion[0] = 0;
    expect(errorOf(decodeHello(badVersion))).toMatch(/HELLO: wire version 0/);
    const longAddress = helloBytes.slice();
    longAddress[addressLengthAt] = 0x00;
    longAddress[addressLengthAt + 1] = 0x01; // 256
    expect(errorOf(decodeHello(longAddress))).toMatch(/address length 256 exceeds 255/);
    const badUtf8 = helloBytes.slice();
    badUtf8[addressLengthAt + 2] = 0xff;
    expect(errorOf(decodeHello(badUtf8))).toMatch(/not valid utf8/);
    const hugePrivate = encodeReject({ proof: fill(32, 3) });
    hugePrivate[32] = 0xff;
    hugePrivate[33] = 0xff;
    expect(errorOf(decodeReject(hugePrivate))).toMatch(/truncated at private data \(needs 65535 bytes/);
  });

  it('never throw on random garbage', () => {
    const rand = mulberry32(7);
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rand() * 120) }, () => Math.floor(rand() * 256));
      for (const decode of decoders) {
        const result = decode(bytes);
        expect(typeof result).toBe('object');
      }
    }
  });

  it('throw DatError naming the argument on bad encoder input', () => {
    expect(datErrorArgument(() => encodeChallenge(fill(31, 0)))).toBe('serverNonce');
    expect(datErrorArgument(() => encodeHello({ ...hello, clientNonce: fill(33, 0) }))).toBe('hello.clientNonce');
    expect(datErrorArgument(() => encodeHello({ ...hello, proof: fill(1, 0) }))).toBe('hello.proof');
    expect(datErrorArgument(() => encodeHello({ ...hello, connQual: -1 }))).toBe('hello.connQual');
    expect(datErrorArgument(() => encodeHello({ ...hello, address: 'é'.repeat(128) }))).toBe('hello.address');
    expect(datErrorArgument(() => encodeHello({ ...hello, privateData: fill(MAX_PRIVATE_DATA_LENGTH + 1, 0) }))).toBe(
      'hello.privateData',
    );
    expect(datErrorArgument(() => encodeAccept({ proof: fill(32, 0), privateData: fill(MAX_PRIVATE_DATA_LENGTH + 1, 0) }))).toBe(
      'accept.privateData',
    );
    expect(datErrorArgument(() => encodeReject({ proof: fill(32, 0), privateData: 'x' as unknown as Uint8Array }))).toBe('reject.privateData');
    expect(datErrorArgument(() => encodeReject({ proof: fill(31, 0) }))).toBe('reject.proof');
  });
});

describe('authentication proofs', () => {
  it('are HMAC-SHA256 over the label and both nonces, in the specified orders', () => {
    const expectedHello = createHmac('sha256', jobKey).update('dapl-tcp-c').update(serverNonce).update(clientNonce).digest();
    const expectedAccept = createHmac('sha256', jobKey).update('dapl-tcp-s').update(clientNonce).update(serverNonce).digest();
    expect(Buffer.from(helloProof(jobKey, serverNonce, clientNonce))).toEqual(expectedHello);
    expect(Buffer.from(acceptProof(jobKey, serverNonce, clientNonce))).toEqual(expectedAccept);
  });

  it('verify only with the right key, nonces and direction', () => {
    const proof = helloProof(jobKey, serverNonce, clientNonce);
    expect(verifyHelloProof(jobKey, serverNonce, clientNonce, proof)).toBe(true);
    expect(verifyHelloProof(new TextEncoder().encode('other'), serverNonce, clientNonce, proof)).toBe(false);
    expect(verifyHelloProof(jobKey, clientNonce, serverNonce, proof)).toBe(false);
    expect(verifyAcceptProof(jobKey, serverNonce, clientNonce, proof)).toBe(false);
    expect(verifyAcceptProof(jobKey, serverNonce, clientNonce, acceptProof(jobKey, serverNonce, clientNonce))).toBe(true);
    expect(verifyHelloProof(jobKey, serverNonce, clientNonce, proof.subarray(0, 31))).toBe(false);
  });

  it('make fresh nonces and reject bad keys or nonces', () => {
    const a = newNonce();
    expect(a.length).toBe(NONCE_SIZE);
    expect(Buffer.from(a).equals(Buffer.from(newNonce()))).toBe(false);
    expect(datErrorArgument(() => helloProof(new Uint8Array(0), serverNonce, clientNonce))).toBe('jobKey');
    expect(datErrorArgument(() => acceptProof(jobKey, fill(8, 0), clientNonce))).toBe('serverNonce');
    expect(datErrorArgument(() => helloProof(jobKey, serverNonce, fill(33, 0)))).toBe('clientNonce');
  });
});
