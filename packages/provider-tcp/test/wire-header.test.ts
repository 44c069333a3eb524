import { describe, expect, it } from 'vitest';
import { DatStatus, DtoStatus, isDatError } from '@dapl/core';
import { isFrameError } from '@dapl/core/provider-kit';
import {
  CONTROL_PAYLOAD_LIMIT,
  decodeHeader,
  encodeFrame,
  encodeHeader,
  FrameFlag,
  FrameType,
  HEADER_SIZE,
  NakStatus,
  nakStatusFromDatStatus,
  nakStatusToCompletion,
  type HeaderFields,
  type TcpFrameHeader,
} from '../src/wire/index.js';

const limits = { maxPayload: 1 << 20 };

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function headerBytes(fields: HeaderFields): Uint8Array {
  const bytes = new Uint8Array(HEADER_SIZE);
  encodeHeader(bytes, 0, fields);
  return bytes;
}

function decodeError(bytes: Uint8Array, maxPayload = limits.maxPayload): string {
  const result = decodeHeader(bytes, { maxPayload });
  if (!isFrameError(result)) throw new Error(`expected an error, got ${JSON.stringify(result, (_, v) => String(v))}`);
  return result.message;
}

describe('TCP frame header layout', () => {
  it('encodes a header byte-exactly (golden)', () => {
    const bytes = headerBytes({
      type: FrameType.RDMA_WRITE_IMM,
      flags: FrameFlag.ACK_VALID,
      payloadLength: 0x01020304,
      seq: 0x0a0b0c0d,
      ack: 0xfffffffe,
      aux: 0xdeadbeef,
      rmrContext: 0x1122334455667788n,
      targetOffset: 0xffff_ffff_ffff_ffffn,
    });
    expect(hex(bytes)).toBe(
      [
        '07', // type
        '01', // flags
        '0000', // status
        '04030201', // payloadLength
        '0d0c0b0a', // seq
        'feffffff', // ack
        'efbeadde', // aux
        '00000000', // reserved
        '8877665544332211', // rmrContext
        'ffffffffffffffff', // targetOffset
      ].join(''),
    );
  });

  it('puts a NAK status in bytes 2..3 and zeroes omitted fields', () => {
    const bytes = headerBytes({ type: FrameType.NAK, status: NakStatus.REMOTE_LENGTH, seq: 258 });
    expect(hex(bytes)).toBe('0b000300' + '00000000' + '02010000' + '00'.repeat(28));
  });

  it('writes at an offset in a larger slab and returns the next offset', () => {
    const slab = new Uint8Array(100).fill(0xee);
    expect(encodeHeader(slab, 50, { type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 7 })).toBe(90);
    expect(slab.subarray(0, 50).every((b) => b === 0xee)).toBe(true);
    expect(slab.subarray(90).every((b) => b === 0xee)).toBe(true);
    const decoded = decodeHeader(slab.subarray(50, 90), limits) as TcpFrameHeader;
    expect(decoded).toMatchObject({ type: FrameType.ACK, flags: 1, ack: 7 });
  });

  it('round-trips every frame type', () => {
    const samples: HeaderFields[] = [
      { type: FrameType.CHALLENGE, payloadLength: 33 },
      { type: FrameType.HELLO, payloadLength: 200 },
      { type: FrameType.ACCEPT, payloadLength: 34, flags: FrameFlag.ACK_VALID },
      { type: FrameType.REJECT, payloadLength: 2 },
      { type: FrameType.SEND, payloadLength: 1000, seq: 1, ack: 9, flags: FrameFlag.ACK_VALID },
      { type: FrameType.RDMA_WRITE, payloadLength: 4096, seq: 2, rmrContext: 0xabcdefn, targetOffset: 64n },
      { type: FrameType.RDMA_WRITE_IMM, payloadLength: 8, seq: 3, aux: 0xffffffff, rmrContext: 1n << 63n, targetOffset: 0n },
      { type: FrameType.READ_REQ, seq: 4, aux: limits.maxPayload, rmrContext: 5n, targetOffset: (1n << 64n) - 1n },
      { type: FrameType.READ_RESP, payloadLength: limits.maxPayload, seq: 4 },
      { type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 0xffffffff },
      { type: FrameType.NAK, status: NakStatus.REMOTE_ACCESS_PRIVILEGES, seq: 6 },
      { type: FrameType.DISCONNECT },
    ];
    for (const fields of samples) {
      const decoded = decodeHeader(headerBytes(fields), limits);
      expect(decoded).toEqual({
        flags: 0,
        status: 0,
        payloadLength: 0,
        seq: 0,
        ack: 0,
        aux: 0,
        rmrContext: 0n,
        targetOffset: 0n,
        ...fields,
      });
    }
  });

  it('builds whole frames with the payload length filled in', () => {
    const frame = encodeFrame({ type: FrameType.SEND, seq: 1 }, Uint8Array.of(1, 2, 3));
    expect(frame.length).toBe(HEADER_SIZE + 3);
    expect(decodeHeader(frame, limits)).toMatchObject({ type: FrameType.SEND, payloadLength: 3, seq: 1 });
    expect(frame.subarray(HEADER_SIZE)).toEqual(Uint8Array.of(1, 2, 3));
  });
});

describe('TCP frame header validation', () => {
  function mutate(fields: HeaderFields, at: number, value: number): Uint8Array {
    const bytes = headerBytes(fields);
    bytes[at] = value;
    return bytes;
  }

  it('rejects unknown types, flag bits, reserved bits and stray status', () => {
    expect(decodeError(mutate({ type: FrameType.SEND }, 0, 0))).toMatch(/unknown frame type 0/);
    expect(decodeError(mutate({ type: FrameType.SEND }, 0, 13))).toMatch(/unknown frame type 13/);
    expect(decodeError(mutate({ type: FrameType.SEND }, 1, 0x04))).toMatch(/SEND: unknown flag bits 0x4/);
    expect(decodeError(mutate({ type: FrameType.SEND }, 23, 0x80))).toMatch(/reserved field is 2147483648/);
    expect(decodeError(mutate({ type: FrameType.SEND }, 2, 1))).toMatch(/SEND: status 1 not allowed \(must be 0\)/);
    expect(decodeError(headerBytes({ type: FrameType.NAK, status: 0 }))).toMatch(/NAK: status 0 not allowed/);
    expect(decodeError(headerBytes({ type: FrameType.NAK, status: 5 }))).toMatch(/NAK codes 1\.\.4/);
  });

  it('bounds payload lengths by frame kind', () => {
    expect(decodeError(headerBytes({ type: FrameType.SEND, payloadLength: 101 }), 100)).toMatch(
      /SEND: payload length 101 exceeds the limit 100/,
    );
    expect(decodeHeader(headerBytes({ type: FrameType.SEND, payloadLength: 100 }), { maxPayload: 100 })).toMatchObject({
      payloadLength: 100,
    });
    expect(decodeError(headerBytes({ type: FrameType.READ_RESP, payloadLength: 0xffffffff }))).toMatch(/exceeds/);
    expect(decodeError(headerBytes({ type: FrameType.HELLO, payloadLength: CONTROL_PAYLOAD_LIMIT + 1 }))).toMatch(
      /HELLO: payload length 4097 exceeds the limit 4096/,
    );
    for (const type of [FrameType.ACK, FrameType.NAK, FrameType.READ_REQ, FrameType.DISCONNECT]) {
      const fields: HeaderFields = { type, payloadLength: 1, status: type === FrameType.NAK ? 1 : 0 };
      expect(decodeError(headerBytes(fields))).toMatch(/exceeds the limit 0/);
    }
    expect(decodeError(headerBytes({ type: FrameType.READ_REQ, aux: 101 }), 100)).toMatch(
      /READ_REQ: read length 101 exceeds the limit 100/,
    );
    expect(decodeError(new Uint8Array(10))).toMatch(/needs 40/);
  });

  it('throws DatError naming the field for unencodable values', () => {
    const cases: Array<[() => unknown, string]> = [
      [() => headerBytes({ type: 0 as FrameType }), 'fields.type'],
      [() => headerBytes({ type: FrameType.SEND, flags: 4 }), 'fields.flags'],
      [() => headerBytes({ type: FrameType.SEND, status: 0x10000 }), 'fields.status'],
      [() => headerBytes({ type: FrameType.SEND, payloadLength: -1 }), 'fields.payloadLength'],
      [() => headerBytes({ type: FrameType.SEND, seq: 2 ** 32 }), 'fields.seq'],
      [() => headerBytes({ type: FrameType.SEND, ack: 1.5 }), 'fields.ack'],
      [() => headerBytes({ type: FrameType.SEND, aux: Number.NaN }), 'fields.aux'],
      [() => headerBytes({ type: FrameType.SEND, rmrContext: -1n }), 'fields.rmrContext'],
      [() => headerBytes({ type: FrameType.SEND, targetOffset: 1n << 64n }), 'fields.targetOffset'],
      [() => encodeHeader(new Uint8Array(50), 11, { type: FrameType.SEND }), 'offset'],
    ];
    for (const [call, argument] of cases) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(isDatError(caught, DatStatus.INVALID_PARAMETER), argument).toBe(true);
      expect((caught as { argument: string }).argument).toBe(argument);
    }
  });
});

describe('NAK status codes', () => {
  it('map to DTO completion status and reason', () => {
    expect(nakStatusToCompletion(NakStatus.REMOTE_ACCESS_PROTECTION)).toEqual({
      status: DtoStatus.REMOTE_ACCESS,
      reason: DatStatus.PROTECTION_VIOLATION,
    });
    expect(nakStatusToCompletion(NakStatus.REMOTE_ACCESS_PRIVILEGES)).toEqual({
      status: DtoStatus.REMOTE_ACCESS,
      reason: DatStatus.PRIVILEGES_VIOLATION,
    });
    expect(nakStatusToCompletion(NakStatus.REMOTE_LENGTH)).toEqual({
      status: DtoStatus.REMOTE_RESPONDER,
      reason: DatStatus.LENGTH_ERROR,
    });
    expect(nakStatusToCompletion(NakStatus.REMOTE_OPERATION)).toEqual({
      status: DtoStatus.REMOTE_RESPONDER,
      reason: undefined,
    });
    expect(nakStatusToCompletion(99).status).toBe(DtoStatus.REMOTE_RESPONDER);
  });

  it('come from the DatStatus of the target check, and round-trip', () => {
    expect(nakStatusFromDatStatus(DatStatus.PROTECTION_VIOLATION)).toBe(NakStatus.REMOTE_ACCESS_PROTECTION);
    expect(nakStatusFromDatStatus(DatStatus.PRIVILEGES_VIOLATION)).toBe(NakStatus.REMOTE_ACCESS_PRIVILEGES);
    expect(nakStatusFromDatStatus(DatStatus.LENGTH_ERROR)).toBe(NakStatus.REMOTE_LENGTH);
    expect(nakStatusFromDatStatus(DatStatus.INTERNAL_ERROR)).toBe(NakStatus.REMOTE_OPERATION);
    for (const code of Object.values(NakStatus)) {
      const { reason } = nakStatusToCompletion(code);
      expect(nakStatusFromDatStatus(reason ?? DatStatus.INTERNAL_ERROR)).toBe(code);
    }
  });
});
