import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { LinkState, transitionLink } from '../src/runtime/connections/peer-link.js';
import {
  decodeListenAddress,
  decodeWiringRequest,
  encodeListenAddress,
  encodeWiringRequest,
  WIRING_PRIVATE_DATA_BYTES,
} from '../src/runtime/connections/wiring.js';

describe('wiring request private data', () => {
  it('encodes connect and reverse byte by byte: magic, version, kind, rank big-endian', () => {
    expect([...encodeWiringRequest({ kind: 'connect', rank: 5 })]).toEqual([0xda, 1, 1, 0, 0, 0, 5]);
    expect([...encodeWiringRequest({ kind: 'reverse', rank: 0x01020304 })]).toEqual([0xda, 1, 2, 1, 2, 3, 4]);
    expect([...encodeWiringRequest({ kind: 'connect', rank: 0xffffffff })]).toEqual([0xda, 1, 1, 255, 255, 255, 255]);
  });

  it('decodes what it encodes, also from a view at an offset', () => {
    for (const request of [
      { kind: 'connect', rank: 0 },
      { kind: 'reverse', rank: 7 },
      { kind: 'connect', rank: 123_456_789 },
    ] as const) {
      const bytes = encodeWiringRequest(request);
      expect(decodeWiringRequest(bytes)).toEqual(request);
      const slab = new Uint8Array(bytes.length + 3);
      slab.set(bytes, 3);
      expect(decodeWiringRequest(slab.subarray(3))).toEqual(request);
    }
  });

  it('returns a reason (never throws) for private data that is not a wiring request', () => {
    const cases: [number[], string][] = [
      [[], '0 bytes'],
      [[0xda, 1, 1, 0, 0, 0], '6 bytes'],
      [[0xda, 1, 1, 0, 0, 0, 0, 0], '8 bytes'],
      [[0xdb, 1, 1, 0, 0, 0, 1], 'magic'],
      [[0xda, 2, 1, 0, 0, 0, 1], 'version 2'],
      [[0xda, 1, 0, 0, 0, 0, 1], 'kind 0'],
      [[0xda, 1, 3, 0, 0, 0, 1], 'kind 3'],
    ];
    for (const [bytes, reason] of cases) {
      const decoded = decodeWiringRequest(new Uint8Array(bytes));
      expect(typeof decoded).toBe('string');
      expect(decoded).toContain(reason);
    }
    expect(WIRING_PRIVATE_DATA_BYTES).toBe(7);
  });

  it('refuses to encode a bad kind or rank', () => {
    expect(() => encodeWiringRequest({ kind: 'toString' as never, rank: 1 })).toThrow(expect.objectContaining({ argument: 'kind' }));
    for (const rank of [-1, 1.5, 2 ** 32]) {
      expect(() => encodeWiringRequest({ kind: 'connect', rank })).toThrow(expect.objectContaining({ status: DatStatus.INVALID_PARAMETER, argument: 'rank' }));
    }
  });
});

describe('listen address KVS value', () => {
  it('is <address>#<connQual>, the conn-qual after the last #', () => {
    expect(encodeListenAddress({ address: '10.0.0.1', connQual: 40_001 })).toBe('10.0.0.1#40001');
    expect(decodeListenAddress('10.0.0.1#40001', 'k')).toEqual({ address: '10.0.0.1', connQual: 40_001 });
    expect(decodeListenAddress('::1#7', 'k')).toEqual({ address: '::1', connQual: 7 });
    expect(decodeListenAddress('odd#name#12', 'k')).toEqual({ address: 'odd#name', connQual: 12 });
    const roundTrip = { address: 'fe80::1%eth0:host', connQual: 65_535 };
    expect(decodeListenAddress(encodeListenAddress(roundTrip), 'k')).toEqual(roundTrip);
  });

  it('refuses addresses the KVS cannot carry', () => {
    expect(() => encodeListenAddress({ address: 'a b', connQual: 1 })).toThrow(expect.objectContaining({ status: DatStatus.INVALID_ADDRESS }));
    expect(() => encodeListenAddress({ address: '', connQual: 1 })).toThrow(expect.objectContaining({ status: DatStatus.INVALID_ADDRESS }));
    expect(() => encodeListenAddress({ address: 'h', connQual: -1 })).toThrow(expect.objectContaining({ argument: 'connQual' }));
  });

  it('names the KVS key when a published value is malformed', () => {
    for (const value of ['', 'host', 'host#', '#12', 'host#x1', 'host#1.5', 'host#-3']) {
      expect(() => decodeListenAddress(value, 'dapl-ep-3')).toThrow(
        expect.objectContaining({ status: DatStatus.INVALID_PARAMETER, argument: 'dapl-ep-3', message: expect.stringContaining('"dapl-ep-3"') }),
      );
    }
  });
});

describe('peer link state machine', () => {
  it('allows the scheme\'s transitions and refuses the rest with INTERNAL_ERROR', () => {
    expect(transitionLink(LinkState.IDLE, 'connect')).toBe(LinkState.CONNECTING);
    expect(transitionLink(LinkState.IDLE, 'await')).toBe(LinkState.AWAITING);
    expect(transitionLink(LinkState.AWAITING, 'accept')).toBe(LinkState.ACCEPTING);
    expect(transitionLink(LinkState.ACCEPTING, 'accept')).toBe(LinkState.ACCEPTING);
    expect(transitionLink(LinkState.ACCEPTING, 'established')).toBe(LinkState.CONNECTED);
    expect(transitionLink(LinkState.CONNECTING, 'failed')).toBe(LinkState.IDLE);
    expect(transitionLink(LinkState.CONNECTED, 'lost')).toBe(LinkState.IDLE);
    expect(() => transitionLink(LinkState.CONNECTED, 'accept')).toThrow(expect.objectContaining({ status: DatStatus.INTERNAL_ERROR }));
    expect(() => transitionLink(LinkState.AWAITING, 'connect')).toThrow(expect.objectContaining({ status: DatStatus.INTERNAL_ERROR }));
    expect(() => transitionLink(LinkState.IDLE, 'established')).toThrow(expect.objectContaining({ status: DatStatus.INTERNAL_ERROR }));
  });
});
