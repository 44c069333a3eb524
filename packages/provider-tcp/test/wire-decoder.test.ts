import { describe, expect, it } from 'vitest';
import {
  concatBytes,
  FrameDecoderState,
  isFrameError,
  PayloadCollector,
  type FrameSink,
} from '@dapl/core/provider-kit';
import {
  decodeAccept,
  decodeChallenge,
  decodeHello,
  decodeReject,
  encodeAccept,
  encodeChallenge,
  encodeFrame,
  encodeHello,
  encodeReject,
  FrameFlag,
  FrameType,
  HEADER_SIZE,
  isControlFrame,
  TcpFrameDecoder,
  type HeaderFields,
  type TcpFrameHeader,
} from '../src/wire/index.js';
import { seededRandom as mulberry32 } from '@dapl/core/testing';


const MAX_PAYLOAD = 512;
const limits = { maxPayload: MAX_PAYLOAD };

const int = (rand: () => number, n: number) => Math.floor(rand() * n);
const u32 = (rand: () => number) => int(rand, 2 ** 32);
const u64 = (rand: () => number) => (BigInt(u32(rand)) << 32n) | BigInt(u32(rand));
const randomBytes = (rand: () => number, n: number) => Uint8Array.from({ length: n }, () => int(rand, 256));

interface StreamFrame {
  readonly fields: HeaderFields;
  readonly payload: Uint8Array;
}

/** A random valid frame of the given type, with a well-formed payload for control frames. */
function randomFrame(rand: () => number, type: FrameType): StreamFrame {
  const flags = rand() < 0.5 ? FrameFlag.ACK_VALID : 0;
  const base = { type, flags, seq: u32(rand), ack: u32(rand) };
  const data = () => randomBytes(rand, rand() < 0.2 ? 0 : int(rand, MAX_PAYLOAD + 1));
  const privateData = () => randomBytes(rand, int(rand, 40));
  switch (type) {
    case FrameType.CHALLENGE:
      return { fields: base, payload: encodeChallenge(randomBytes(rand, 32)) };
    case FrameType.HELLO:
      return {
        fields: base,
        payload: encodeHello({
          clientNonce: randomBytes(rand, 32),
          proof: randomBytes(rand, 32),
          connQual: u32(rand),
          address: `host-${int(rand, 1000)}`,
          privateData: privateData(),
        }),
      };
    case FrameType.ACCEPT:
      return { fields: base, payload: encodeAccept({ proof: randomBytes(rand, 32), privateData: privateData() }) };
    case FrameType.REJECT:
      return { fields: base, payload: encodeReject({ proof: randomBytes(rand, 32), privateData: privateData() }) };
    case FrameType.SEND:
    case FrameType.READ_RESP:
      return { fields: base, payload: data() };
    case FrameType.RDMA_WRITE:
    case FrameType.RDMA_WRITE_IMM:
      return {
        fields: { ...base, aux: type === FrameType.RDMA_WRITE_IMM ? u32(rand) : 0, rmrContext: u64(rand), targetOffset: u64(rand) },
        payload: data(),
      };
    case FrameType.READ_REQ:
      return {
        fields: { ...base, aux: int(rand, MAX_PAYLOAD + 1), rmrContext: u64(rand), targetOffset: u64(rand) },
        payload: new Uint8Array(0),
      };
    case FrameType.NAK:
      return { fields: { ...base, status: 1 + int(rand, 4) }, payload: new Uint8Array(0) };
    case FrameType.ACK:
    case FrameType.DISCONNECT:
      return { fields: base, payload: new Uint8Array(0) };
  }
}

function randomStream(rand: () => number, count: number): { frames: StreamFrame[]; bytes: Uint8Array; starts: number[] } {
  const frames = Array.from({ length: count }, () => randomFrame(rand, (1 + int(rand, 12)) as FrameType));
  const encoded = frames.map((f) => encodeFrame(f.fields, f.payload));
  const starts: number[] = [];
  let at = 0;
  for (const e of encoded) {
    starts.push(at);
    at += e.length;
  }
  return { frames, bytes: concatBytes(...encoded), starts };
}

function randomChunks(bytes: Uint8Array, rand: () => number, maxChunk: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.min(bytes.length - at, 1 + int(rand, maxChunk));
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

interface Outcome {
  readonly frames: Array<{ header: TcpFrameHeader; payload: Uint8Array }>;
  readonly errors: string[];
  readonly state: FrameDecoderState;
  readonly maxRetainedOverChunk: number;
}

/**
 * Feeds chunks to a TcpFrameDecoder, pausing frames at random when `pauseRate` > 0, and checks
 * after every push that retained memory stays within one chunk plus one header.
 */
function decode(chunks: Uint8Array[], rand: () => number = () => 1, pauseRate = 0): Outcome {
  const frames: Outcome['frames'] = [];
  const errors: string[] = [];
  let maxRetainedOverChunk = -Infinity;
  const decoder = new TcpFrameDecoder(limits, {
    onFrame(header): FrameSink | 'pause' {
      if (rand() < pauseRate) return 'pause';
      return new PayloadCollector(header.payloadLength, (payload) => frames.push({ header, payload }));
    },
    onError(message) {
      errors.push(message);
    },
  });
  for (const chunk of chunks) {
    decoder.push(chunk);
    maxRetainedOverChunk = Math.max(maxRetainedOverChunk, decoder.retainedBytes - chunk.length);
    while (decoder.paused) decoder.resume();
    maxRetainedOverChunk = Math.max(maxRetainedOverChunk, decoder.retainedBytes - HEADER_SIZE);
  }
  decoder.end();
  return { frames, errors, state: decoder.currentState, maxRetainedOverChunk };
}

function reencode(frames: Outcome['frames']): Uint8Array {
  return concatBytes(...frames.map((f) => encodeFrame(f.header, f.payload)));
}

/** The invariants every input must satisfy, valid or not. */
function checkOutcome(input: Uint8Array, outcome: Outcome, label: string): void {
  const fail = (why: string) => {
    throw new Error(`${label}: ${why}`);
  };
  if (outcome.maxRetainedOverChunk > HEADER_SIZE) fail(`retained ${outcome.maxRetainedOverChunk} bytes beyond a chunk`);
  if (outcome.errors.length > 1) fail(`${outcome.errors.length} errors`);
  const ended = outcome.state === FrameDecoderState.Ended;
  const failed = outcome.state === FrameDecoderState.Failed;
  if (!(ended && outcome.errors.length === 0) && !(failed && outcome.errors.length === 1)) {
    fail(`ended in state ${outcome.state} with errors ${JSON.stringify(outcome.errors)}`);
  }
  // Delivered frames are exactly what the input held: a clean end consumed all of it.
  const again = reencode(outcome.frames);
  const prefix = input.subarray(0, again.length);
  if (!Buffer.from(again).equals(Buffer.from(prefix))) fail('delivered frames differ from the input');
  if (ended && again.length !== input.length) fail('clean end without consuming all input');
}

describe('TcpFrameDecoder on valid streams', () => {
  it('decodes every frame type with its header and payload', () => {
    const rand = mulberry32(1);
    const sent = Array.from({ length: 12 }, (_, i) => randomFrame(rand, (i + 1) as FrameType));
    const bytes = concatBytes(...sent.map((f) => encodeFrame(f.fields, f.payload)));
    const { frames, errors } = decode([bytes]);
    expect(errors).toEqual([]);
    expect(frames.map((f) => f.header.type)).toEqual(sent.map((f) => f.fields.type));
    frames.forEach((frame, i) => {
      expect(frame.header).toMatchObject({ ...sent[i].fields, payloadLength: sent[i].payload.length });
      expect(frame.payload).toEqual(sent[i].payload);
    });
    const controls = [decodeChallenge, decodeHello, decodeAccept, decodeReject];
    for (const frame of frames.filter((f) => isControlFrame(f.header.type))) {
      expect(isFrameError(controls[frame.header.type - 1](frame.payload))).toBe(false);
    }
  });

  it('gives identical results whole, byte by byte and at random chunk boundaries', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = mulberry32(seed);
      const { bytes } = randomStream(rand, 12);
      const whole = decode([bytes]);
      expect(whole.errors).toEqual([]);
      expect(reencode(whole.frames)).toEqual(bytes);
      const variants = [randomChunks(bytes, rand, 50), randomChunks(bytes, rand, 4096)];
      if (seed <= 5) variants.push(randomChunks(bytes, rand, 1));
      for (const chunks of variants) {
        const outcome = decode(chunks, rand, 0.3);
        expect(outcome.errors).toEqual([]);
        expect(outcome.frames).toEqual(whole.frames);
      }
    }
  });
});

describe('TcpFrameDecoder fuzz', () => {
  it('survives 10,000 random byte strings', () => {
    const rand = mulberry32(0xf00d);
    let errors = 0;
    for (let i = 0; i < 10_000; i++) {
      // Some inputs start with a valid type and zeroed flags/reserved so parsing gets further.
      const input = randomBytes(rand, int(rand, 160));
      if (input.length >= HEADER_SIZE && rand() < 0.5) {
        input[0] = 1 + int(rand, 12);
        input[1] = int(rand, 2);
        input.fill(0, 20, 24);
        if (rand() < 0.5) input.fill(0, 2, 4);
      }
      const outcome = decode(randomChunks(input, rand, 64), rand, 0.2);
      checkOutcome(input, outcome, `random input ${i}`);
      errors += outcome.errors.length;
    }
    expect(errors).toBeGreaterThan(9000);
  });

  it('survives 10,000 mutated valid streams', () => {
    const rand = mulberry32(0xbeef);
    const outcomes = { ended: 0, failed: 0, framesBeforeError: 0 };
    for (let i = 0; i < 10_000; i++) {
      const { bytes, starts } = randomStream(rand, 1 + int(rand, 6));
      let input = bytes.slice();
      const mutations = 1 + int(rand, 3);
      for (let m = 0; m < mutations; m++) {
        const kind = int(rand, 4);
        if (kind === 0 && input.length > 0) {
          input[int(rand, input.length)] ^= 1 << int(rand, 8); // bit flip
        } else if (kind === 1) {
          input = input.slice(0, int(rand, input.length + 1)); // truncation
        } else if (kind === 2) {
          const at = starts[int(rand, starts.length)] + 4; // payload length field
          const value = [0, MAX_PAYLOAD, MAX_PAYLOAD + 1, u32(rand), int(rand, 600)][int(rand, 5)];
          if (at + 4 <= input.length) new DataView(input.buffer).setUint32(at, value, true);
        } else {
          const at = int(rand, input.length + 1); // inserted garbage
          input = concatBytes(input.subarray(0, at), randomBytes(rand, 1 + int(rand, 8)), input.subarray(at));
        }
      }
      const outcome = decode(randomChunks(input, rand, 1 + int(rand, 200)), rand, 0.2);
      checkOutcome(input, outcome, `mutation ${i}`);
      if (outcome.state === FrameDecoderState.Ended) outcomes.ended++;
      else outcomes.failed++;
      if (outcome.errors.length === 1 && outcome.frames.length > 0) outcomes.framesBeforeError++;
    }
    // Both outcomes are exercised, and errors are found mid-stream, not only at the start.
    expect(outcomes.failed).toBeGreaterThan(3000);
    expect(outcomes.ended).toBeGreaterThan(100);
    expect(outcomes.framesBeforeError).toBeGreaterThan(1000);
  });

  it('refuses an oversized length at once instead of waiting for (or allocating) the payload', () => {
    const errors: string[] = [];
    let offered = 0;
    const decoder = new TcpFrameDecoder(limits, {
      onFrame: () => {
        offered++;
        return 'pause';
      },
      onError: (message) => errors.push(message),
    });
    const header = encodeFrame({ type: FrameType.SEND });
    new DataView(header.buffer).setUint32(4, 0xffffffff, true);
    decoder.push(header);
    expect(offered).toBe(0);
    expect(errors).toEqual(['SEND: payload length 4294967295 exceeds the limit 512']);
    expect(decoder.retainedBytes).toBe(0);
  });

  it('rejects bad limits when configured', () => {
    const consumer = { onFrame: () => 'pause' as const, onError: () => {} };
    expect(() => new TcpFrameDecoder({ maxPayload: -1 }, consumer)).toThrow(/limits.maxPayload -1/);
    expect(() => new TcpFrameDecoder({ maxPayload: 2 ** 32 }, consumer)).toThrow(/limits.maxPayload/);
  });
});
