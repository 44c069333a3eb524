import { describe, expect, it } from 'vitest';
import { isDatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import {
  concatBytes,
  constantTimeEqual,
  readU16,
  readU32,
  readU64,
  writeU16,
  writeU32,
  writeU64,
} from '../src/provider-kit/bytes.js';
import {
  FrameDecoder,
  FrameDecoderState,
  FrameError,
  PayloadCollector,
  isFrameError,
  type FrameConsumer,
  type FrameFormat,
  type FrameSink,
} from '../src/provider-kit/frame-decoder.js';
import { seededRandom as mulberry32 } from '../src/testing/seeded-random.js';


// A toy format: 4-byte header = magic 0xA5, tag, u16 LE payload length (max 1000).
interface ToyHeader {
  readonly tag: number;
  readonly length: number;
}
const TOY_HEADER = 4;
const toyFormat: FrameFormat<ToyHeader> = {
  headerSize: TOY_HEADER,
  parseHeader(bytes) {
    if (bytes[0] !== 0xa5) return new FrameError(`bad magic ${bytes[0]}`);
    const length = bytes[2] | (bytes[3] << 8);
    if (length > 1000) return new FrameError(`length ${length} > 1000`);
    return { tag: bytes[1], length };
  },
  payloadLength: (h) => h.length,
};

function toyFrame(tag: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(TOY_HEADER + payload.length);
  out[0] = 0xa5;
  out[1] = tag;
  out[2] = payload.length & 0xff;
  out[3] = payload.length >>> 8;
  out.set(payload, TOY_HEADER);
  return out;
}

function randomStream(rand: () => number, frames: number): { stream: Uint8Array; expected: string[] } {
  const parts: Uint8Array[] = [];
  const expected: string[] = [];
  for (let i = 0; i < frames; i++) {
    const length = rand() < 0.3 ? 0 : Math.floor(rand() * 200);
    const payload = new Uint8Array(length);
    for (let j = 0; j < length; j++) payload[j] = Math.floor(rand() * 256);
    parts.push(toyFrame(i & 0xff, payload));
    expected.push(describeFrame(i & 0xff, payload));
  }
  return { stream: concatBytes(...parts), expected };
}

function describeFrame(tag: number, payload: Uint8Array): string {
  return `${tag}:${Buffer.from(payload).toString('hex')}`;
}

/** Splits at random boundaries (1..maxChunk bytes), each chunk in its own ArrayBuffer. */
function randomChunks(bytes: Uint8Array, rand: () => number, maxChunk: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.min(bytes.length - at, 1 + Math.floor(rand() * maxChunk));
    chunks.push(bytes.slice(at, at + n));
    at += n;
  }
  return chunks;
}

/** Records frames and errors; optionally pauses a frame the first time it is offered. */
class Recorder implements FrameConsumer<ToyHeader> {
  readonly frames: string[] = [];
  readonly errors: string[] = [];
  readonly pieces: Uint8Array[] = [];
  emptyPieces = 0;
  offers = 0;
  pauseOffer: (index: number, header: ToyHeader) => boolean = () => false;
  private current: { tag: number; parts: Uint8Array[] } | undefined;

  onFrame(header: ToyHeader): FrameSink | 'pause' {
    const index = this.offers++;
    if (this.pauseOffer(index, header)) return 'pause';
    if (this.current !== undefined) throw new Error('frame offered before the previous one ended');
    this.current = { tag: header.tag, parts: [] };
    return {
      write: (piece) => {
        if (piece.length === 0) this.emptyPieces++;
        this.pieces.push(piece);
        this.current!.parts.push(piece.slice());
      },
      end: () => {
        this.frames.push(describeFrame(this.current!.tag, concatBytes(...this.current!.parts)));
        this.current = undefined;
      },
    };
  }

  onError(message: string): void {
    this.errors.push(message);
  }
}

function decodeAll(chunks: Uint8Array[]): Recorder {
  const recorder = new Recorder();
  const decoder = new FrameDecoder(toyFormat, recorder);
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  expect(decoder.currentState).toBe(FrameDecoderState.Ended);
  expect(recorder.emptyPieces).toBe(0);
  return recorder;
}

describe('FrameDecoder chunking', () => {
  it('decodes the same frames whole, byte by byte and at random chunk boundaries', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rand = mulberry32(seed);
      const { stream, expected } = randomStream(rand, 20);
      expect(decodeAll([stream]).frames).toEqual(expected);
      if (seed <= 10) expect(decodeAll(Array.from(stream, (b) => Uint8Array.of(b))).frames).toEqual(expected);
      expect(decodeAll(randomChunks(stream, rand, 64)).frames).toEqual(expected);
      expect(decodeAll(randomChunks(stream, rand, 7)).frames).toEqual(expected);
    }
  });

  it('hands payload pieces as views of the input chunks (zero copy)', () => {
    const stream = concatBytes(toyFrame(1, new Uint8Array(300).fill(7)), toyFrame(2, new Uint8Array(50).fill(9)));
    const chunks = randomChunks(stream, mulberry32(3), 100);
    const recorder = decodeAll(chunks);
    const buffers = new Set(chunks.map((c) => c.buffer));
    expect(recorder.pieces.length).toBeGreaterThan(2);
    for (const piece of recorder.pieces) expect(buffers.has(piece.buffer)).toBe(true);
  });

  it('keeps only a partial header between pushes', () => {
    const stream = toyFrame(5, Uint8Array.of(1, 2, 3));
    const recorder = new Recorder();
    const decoder = new FrameDecoder(toyFormat, recorder);
    decoder.push(stream.subarray(0, 3));
    expect(decoder.retainedBytes).toBe(3);
    decoder.push(stream.subarray(3, 5));
    expect(decoder.retainedBytes).toBe(0);
    expect(decoder.currentState).toBe(FrameDecoderState.Payload);
    decoder.push(stream.subarray(5));
    expect(recorder.frames).toEqual(['5:010203']);
    expect(decoder.retainedBytes).toBe(0);
  });
});

describe('FrameDecoder pause and resume', () => {
  it('pauses before any frame at any split point and delivers the same frames after resume', () => {
    const rand = mulberry32(42);
    const { stream, expected } = randomStream(rand, 6);
    for (let pauseAt = 0; pauseAt < expected.length; pauseAt++) {
      for (let split = 0; split <= stream.length; split += 3) {
        const recorder = new Recorder();
        let pausedOnce = false;
        recorder.pauseOffer = () => {
          if (pausedOnce || recorder.frames.length !== pauseAt) return false;
          pausedOnce = true;
          return true;
        };
        const decoder = new FrameDecoder(toyFormat, recorder);
        for (const chunk of [stream.slice(0, split), stream.slice(split)]) {
          decoder.push(chunk);
          if (decoder.paused) {
            // Nothing more is delivered while paused, whatever arrives.
            const delivered = recorder.frames.length;
            expect(delivered).toBe(pauseAt);
            expect(decoder.retainedBytes).toBeLessThanOrEqual(chunk.length + TOY_HEADER);
            decoder.resume();
            expect(decoder.paused).toBe(false);
          }
        }
        decoder.end();
        expect(recorder.errors).toEqual([]);
        expect(recorder.frames).toEqual(expected);
        expect(pausedOnce).toBe(true);
      }
    }
  });

  it('re-offers the same header after resume and holds input pushed while paused', () => {
    const recorder = new Recorder();
    const offered: ToyHeader[] = [];
    recorder.pauseOffer = (index, header) => {
      offered.push(header);
      return index === 0;
    };
    const decoder = new FrameDecoder(toyFormat, recorder);
    const a = toyFrame(1, Uint8Array.of(0xaa));
    const b = toyFrame(2, Uint8Array.of(0xbb, 0xbc));
    decoder.push(a);
    expect(decoder.paused).toBe(true);
    expect(decoder.retainedBytes).toBe(a.length); // header parked + its payload
    decoder.push(b);
    expect(decoder.retainedBytes).toBe(a.length + b.length);
    expect(recorder.frames).toEqual([]);
    decoder.resume();
    expect(offered[1]).toBe(offered[0]);
    expect(recorder.frames).toEqual(['1:aa', '2:bbbc']);
    expect(decoder.retainedBytes).toBe(0);
  });

  it('handles resume() and push() from inside callbacks without recursion', () => {
    // Chunks of three frames; the next chunk is pushed from inside the first frame's end(),
    // while two frames of the current chunk are still unconsumed.
    const chunkCount = 2000;
    const chunks = Array.from({ length: chunkCount }, (_, c) =>
      concatBytes(...[0, 1, 2].map((k) => toyFrame((3 * c + k) & 0xff, Uint8Array.of(k)))),
    );
    let depth = 0;
    let maxDepth = 0;
    const delivered: number[] = [];
    let credits = 0;
    let next = 1;
    const enter = () => (maxDepth = Math.max(maxDepth, ++depth));
    const decoder: FrameDecoder<ToyHeader> = new FrameDecoder(toyFormat, {
      onFrame: (header) => {
        enter();
        try {
          if (credits === 0) return 'pause';
          credits--;
          decoder.resume(); // not paused: must be a no-op
          return {
            write: () => {
              enter();
              decoder.resume();
              depth--;
            },
            end: () => {
              enter();
              delivered.push(header.tag);
              if (header.tag % 3 === 0 && next < chunkCount) decoder.push(chunks[next++]);
              depth--;
            },
          };
        } finally {
          depth--;
        }
      },
      onError: (message) => {
        throw new Error(message);
      },
    });
    decoder.push(chunks[0]);
    while (decoder.paused) {
      credits += 7;
      decoder.resume();
    }
    expect(delivered).toEqual(Array.from({ length: 3 * chunkCount }, (_, i) => i & 0xff));
    expect(maxDepth).toBe(1);
    expect(decoder.retainedBytes).toBe(0);
  });

  it('keeps retainedBytes within one chunk plus one header while pausing at random', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rand = mulberry32(seed);
      const { stream, expected } = randomStream(rand, 30);
      const recorder = new Recorder();
      recorder.pauseOffer = () => rand() < 0.3;
      const decoder = new FrameDecoder(toyFormat, recorder);
      for (const chunk of randomChunks(stream, rand, 100)) {
        decoder.push(chunk);
        expect(decoder.retainedBytes).toBeLessThanOrEqual(chunk.length + TOY_HEADER);
        while (decoder.paused) decoder.resume();
        expect(decoder.retainedBytes).toBeLessThan(TOY_HEADER);
      }
      decoder.end();
      expect(recorder.frames).toEqual(expected);
    }
  });
});

describe('FrameDecoder errors and end of input', () => {
  it('stops at a bad header: earlier frames delivered, one error, all later input ignored', () => {
    const good = toyFrame(1, Uint8Array.of(1));
    const bad = Uint8Array.of(0x00, 2, 0, 0);
    for (const chunks of [[concatBytes(good, bad, good)], Array.from(concatBytes(good, bad, good), (b) => Uint8Array.of(b))]) {
      const recorder = new Recorder();
      const decoder = new FrameDecoder(toyFormat, recorder);
      for (const chunk of chunks) decoder.push(chunk);
      decoder.push(good);
      decoder.end();
      decoder.resume();
      expect(recorder.frames).toEqual(['1:01']);
      expect(recorder.errors).toEqual(['bad magic 0']);
      expect(decoder.failed).toBe(true);
      expect(decoder.retainedBytes).toBe(0);
    }
  });

  it('rejects a length the format refuses, before allocating or waiting for it', () => {
    const recorder = new Recorder();
    const decoder = new FrameDecoder(toyFormat, recorder);
    decoder.push(Uint8Array.of(0xa5, 0, 0xff, 0xff));
    expect(recorder.errors).toEqual(['length 65535 > 1000']);
  });

  it('turns a throwing parser or a bad payload length into a protocol error', () => {
    for (const [payloadLength, expected] of [
      [() => -1, 'payload length -1 is not an integer >= 0'],
      [() => Number.NaN, 'payload length NaN is not an integer >= 0'],
      [
        () => {
          throw new Error('boom');
        },
        'header parser failed: boom',
      ],
    ] as const) {
      const errors: string[] = [];
      const decoder = new FrameDecoder({ headerSize: 2, parseHeader: () => ({}), payloadLength }, {
        onFrame: () => 'pause',
        onError: (m) => errors.push(m),
      });
      expect(() => decoder.push(Uint8Array.of(1, 2, 3))).not.toThrow();
      expect(errors).toEqual([expected]);
    }
  });

  it('reports input that ends inside a header or a payload, and accepts a clean end', () => {
    const frame = toyFrame(3, Uint8Array.of(1, 2, 3, 4));
    const cases: Array<[number, string[]]> = [
      [0, []],
      [2, ['input ended inside a frame header (2 of 4 bytes)']],
      [6, ['input ended inside a payload (2 bytes missing)']],
      [frame.length, []],
    ];
    for (const [cut, errors] of cases) {
      const recorder = new Recorder();
      const decoder = new FrameDecoder(toyFormat, recorder);
      decoder.push(frame.subarray(0, cut));
      decoder.end();
      expect(recorder.errors).toEqual(errors);
      expect(decoder.currentState).toBe(errors.length === 0 ? FrameDecoderState.Ended : FrameDecoderState.Failed);
      if (errors.length === 0) {
        expect(() => decoder.push(frame)).toThrow(/push\(\) after end\(\)/);
      }
    }
  });

  it('defers the end-of-input check until a paused decoder has delivered its input', () => {
    const recorder = new Recorder();
    recorder.pauseOffer = (index) => index === 0;
    const decoder = new FrameDecoder(toyFormat, recorder);
    decoder.push(concatBytes(toyFrame(1, Uint8Array.of(1)), toyFrame(2, Uint8Array.of(2))));
    decoder.end();
    expect(decoder.paused).toBe(true);
    expect(recorder.frames).toEqual([]);
    decoder.resume();
    expect(recorder.frames).toEqual(['1:01', '2:02']);
    expect(decoder.currentState).toBe(FrameDecoderState.Ended);
  });

  it('fails closed when a consumer callback throws', () => {
    const decoder = new FrameDecoder(toyFormat, {
      onFrame: () => ({
        write: () => {
          throw new Error('consumer bug');
        },
        end: () => {},
      }),
      onError: () => {},
    });
    expect(() => decoder.push(toyFrame(1, Uint8Array.of(1)))).toThrow('consumer bug');
    expect(decoder.failed).toBe(true);
    expect(() => decoder.push(toyFrame(1, Uint8Array.of(1)))).not.toThrow();
  });

  it('rejects bad construction and non-byte input with DatError', () => {
    const consumer = { onFrame: () => 'pause' as const, onError: () => {} };
    expect(() => new FrameDecoder({ ...toyFormat, headerSize: 0 }, consumer)).toThrow(/format.headerSize 0/);
    const decoder = new FrameDecoder(toyFormat, consumer);
    let caught: unknown;
    try {
      decoder.push('abc' as unknown as Uint8Array);
    } catch (error) {
      caught = error;
    }
    expect(isDatError(caught, DatStatus.INVALID_PARAMETER)).toBe(true);
    expect((caught as { argument: string }).argument).toBe('chunk');
  });

  it('recognises FrameError by brand', () => {
    expect(isFrameError(new FrameError('x'))).toBe(true);
    expect(isFrameError({ message: 'x', name: 'FrameError' })).toBe(false);
    expect(isFrameError(null)).toBe(false);
  });
});

describe('PayloadCollector', () => {
  it('gathers a payload delivered in pieces', () => {
    let got: Uint8Array | undefined;
    const decoder = new FrameDecoder(toyFormat, {
      onFrame: (h) => new PayloadCollector(h.length, (bytes) => (got = bytes)),
      onError: () => {},
    });
    for (const b of toyFrame(1, Uint8Array.of(9, 8, 7, 6))) decoder.push(Uint8Array.of(b));
    expect(got).toEqual(Uint8Array.of(9, 8, 7, 6));
    expect(() => new PayloadCollector(-1, () => {})).toThrow(/length -1/);
  });
});

describe('bytes helpers', () => {
  it('reads and writes little-endian u16, u32 and u64', () => {
    const bytes = new Uint8Array(14);
    writeU16(bytes, 0, 0xbeef);
    writeU32(bytes, 2, 0xfedcba98);
    writeU64(bytes, 6, 0x0102030405060708n);
    expect(Buffer.from(bytes).toString('hex')).toBe('efbe' + '98badcfe' + '0807060504030201');
    expect(readU16(bytes, 0)).toBe(0xbeef);
    expect(readU32(bytes, 2)).toBe(0xfedcba98);
    expect(readU64(bytes, 6)).toBe(0x0102030405060708n);
    const view = new DataView(new ArrayBuffer(16));
    writeU64(view, 8, 0xffff_ffff_ffff_ffffn);
    expect(readU64(view, 8)).toBe(0xffff_ffff_ffff_ffffn);
    expect(view.getUint32(8, true)).toBe(0xffffffff);
    writeU64(view, 0, 0x1_0000_0000n);
    expect(new Uint8Array(view.buffer, 0, 8)).toEqual(Uint8Array.of(0, 0, 0, 0, 1, 0, 0, 0));
    expect(readU64(new Uint8Array(8), 0)).toBe(0n);
  });

  it('throws DatError naming the argument for out-of-range values and offsets', () => {
    const bytes = new Uint8Array(8);
    const cases: Array<[() => void, string, RegExp]> = [
      [() => writeU64(bytes, 0, -1n), 'value', /0\.\.2\^64-1/],
      [() => writeU64(bytes, 0, 1n << 64n), 'value', /0\.\.2\^64-1/],
      [() => writeU64(bytes, 1, 0n), 'offset', /allowed 0\.\.0/],
      [() => readU64(bytes, 4), 'offset', /allowed 0\.\.0/],
      [() => writeU32(bytes, 0, 2 ** 32), 'value', /0\.\.4294967295/],
      [() => writeU16(bytes, 7, 1), 'offset', /allowed 0\.\.6/],
      [() => readU32(bytes, -1), 'offset', /allowed 0\.\.4/],
    ];
    for (const [call, argument, message] of cases) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(isDatError(caught, DatStatus.INVALID_PARAMETER)).toBe(true);
      expect((caught as { argument: string }).argument).toBe(argument);
      expect((caught as Error).message).toMatch(message);
    }
  });

  it('concatenates and compares in constant time, false on length mismatch', () => {
    expect(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))).toEqual(Uint8Array.of(1, 2, 3));
    expect(concatBytes()).toEqual(new Uint8Array(0));
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(constantTimeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3))).toBe(false);
  });
});
