/**
 * A streaming decoder for "fixed header + payload" frames, independent of sockets.
 *
 * Payload bytes are never accumulated: they are handed to the consumer's sink as subarrays of
 * the input chunks (zero copy), so a provider places them straight into their destination.
 * The consumer may refuse a frame ('pause'): the decoder then stops at that frame boundary,
 * keeps the frame's header and the rest of the input, and re-offers the frame on `resume()`.
 * Input comes from untrusted peers: any byte sequence yields frames and at most one protocol
 * error, after which all input is ignored.
 */
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

const FRAME_ERROR_BRAND = Symbol.for('@dapl/core/frame-error');

/** A protocol error found while parsing peer input. Returned, never thrown. */
export class FrameError {
  readonly name = 'FrameError';
  readonly [FRAME_ERROR_BRAND] = true;
  constructor(readonly message: string) {}
}

/** True for a `FrameError` (also one made by another copy of core). */
export function isFrameError(value: unknown): value is FrameError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FRAME_ERROR_BRAND] === true;
}

/** How frames look: a fixed-size header that says how many payload bytes follow. */
export interface FrameFormat<H> {
  readonly headerSize: number;
  /** Parses exactly `headerSize` bytes (valid only during the call); must not throw. */
  parseHeader(bytes: Uint8Array): H | FrameError;
  /**
   * Optional fast path: parse the header where it lies, `headerSize` bytes at `offset` of an
   * input chunk, so the common case (a whole header inside one read) copies nothing.
   */
  parseHeaderAt?(bytes: Uint8Array, offset: number): H | FrameError;
  /** How many payload bytes follow the frame with this header. */
  payloadLength(header: H): number;
}

/** Receives one frame's payload, in order, then `end()`. Pieces are valid only during `write`. */
export interface FrameSink {
  /** The next piece of the payload, valid only during the call. */
  write(piece: Uint8Array): void;
  /** The payload is complete (also called for an empty payload). */
  end(): void;
}

/** What a `FrameDecoder` hands frames to: where each payload goes (or 'pause'), and protocol errors. */
export interface FrameConsumer<H> {
  /** A frame's header arrived: where should its payload go, or 'pause' to stop before this frame. */
  onFrame(header: H): FrameSink | 'pause';
  /** Called once on the first protocol error; the decoder then ignores all input. */
  onError(message: string): void;
}

/** Where a `FrameDecoder` is in its input: the states of its one transition function. */
export enum FrameDecoderState {
  /** Assembling the next header. */
  Header = 'header',
  /** A header is parsed and about to be offered to the consumer. */
  Offer = 'offer',
  /** Streaming the current frame's payload to its sink. */
  Payload = 'payload',
  /** The consumer refused the current frame; waiting for `resume()`. */
  Paused = 'paused',
  /** The input ended cleanly at a frame boundary. */
  Ended = 'ended',
  /** A protocol error occurred (or a consumer callback threw); input is ignored. */
  Failed = 'failed',
}

const EMPTY = new Uint8Array(0);

/** A sink that gathers a small, already bounded payload into one array (control frames). */
export class PayloadCollector implements FrameSink {
  private readonly bytes: Uint8Array;
  private filled = 0;

  constructor(
    length: number,
    private readonly onComplete: (payload: Uint8Array) => void,
  ) {
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `length ${length} is not an integer >= 0`, {
        argument: 'length',
      });
    }
    this.bytes = new Uint8Array(length);
  }

  write(piece: Uint8Array): void {
    // The decoder never hands more than payloadLength bytes, so this cannot overflow.
    this.bytes.set(piece, this.filled);
    this.filled += piece.byteLength;
  }

  end(): void {
    this.onComplete(this.bytes);
  }
}

/**
 * The decoder. Callbacks may call `resume()` or `push()` re-entrantly: a push while the decoder
 * is running or paused is queued (by reference) and handled in order, without recursion.
 * While paused the decoder holds references to the caller's chunks, so a caller that reuses its
 * read buffer must read into other memory (or stop reading) until `paused` is false again.
 */
export class FrameDecoder<H> {
  private readonly headerBuf: Uint8Array;
  private headerFill = 0;
  private state = FrameDecoderState.Header;
  private header: H | undefined;
  private remaining = 0;
  private sink: FrameSink | undefined;
  private chunk: Uint8Array = EMPTY;
  private pos = 0;
  private readonly queued: Uint8Array[] = [];
  private queuedBytes = 0;
  private running = false;
  private endRequested = false;

  constructor(
    private readonly format: FrameFormat<H>,
    private readonly consumer: FrameConsumer<H>,
  ) {
    const size = format.headerSize;
    if (!Number.isSafeInteger(size) || size < 1 || size > 65536) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `format.headerSize ${size} is not an integer in 1..65536`, {
        argument: 'format.headerSize',
      });
    }
    this.headerBuf = new Uint8Array(size);
  }

  /** True while the consumer has refused the current frame and `resume()` has not been called. */
  get paused(): boolean {
    return this.state === FrameDecoderState.Paused;
  }

  /** True after a protocol error: the connection should be closed. */
  get failed(): boolean {
    return this.state === FrameDecoderState.Failed;
  }

  get currentState(): FrameDecoderState {
    return this.state;
  }

  /** Input bytes held and not yet delivered (a partial or parked header plus unconsumed input). */
  get retainedBytes(): number {
    const headerBytes =
      this.state === FrameDecoderState.Offer || this.state === FrameDecoderState.Paused
        ? this.format.headerSize
        : this.headerFill;
    return headerBytes + (this.chunk.byteLength - this.pos) + this.queuedBytes;
  }

  /** Feeds input; frames are delivered synchronously as far as the consumer lets them. */
  push(chunk: Uint8Array): void {
    if (!(chunk instanceof Uint8Array)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, 'chunk must be a Uint8Array', { argument: 'chunk' });
    }
    if (this.state === FrameDecoderState.Failed) return;
    if (this.endRequested) {
      throw new DatError(DatStatus.INVALID_STATE, 'push() after end(): the input has already ended', {
        argument: 'chunk',
      });
    }
    if (chunk.byteLength === 0) return;
    if (this.running || this.state === FrameDecoderState.Paused || this.pos < this.chunk.byteLength) {
      this.queued.push(chunk);
      this.queuedBytes += chunk.byteLength;
      return;
    }
    this.chunk = chunk;
    this.pos = 0;
    this.run();
  }

  /** Re-offers the paused frame and continues with the retained input. No-op unless paused. */
  resume(): void {
    if (this.state !== FrameDecoderState.Paused) return;
    this.state = FrameDecoderState.Offer;
    if (!this.running) this.run();
  }

  /**
   * The input has ended (the peer closed). Ending inside a frame is a protocol error; if the
   * decoder is paused, the check happens once the retained input has been delivered.
   */
  end(): void {
    if (this.endRequested || this.state === FrameDecoderState.Failed) return;
    this.endRequested = true;
    if (!this.running) this.run();
  }

  private run(): void {
    this.running = true;
    try {
      while (this.step()) {
        // each step is one transition of the state machine
      }
    } catch (error) {
      // A consumer callback threw: our position in the stream is no longer trustworthy.
      this.release(FrameDecoderState.Failed);
      throw error;
    } finally {
      this.running = false;
    }
  }

  /** One transition; returns false when no progress is possible until more input or resume(). */
  private step(): boolean {
    switch (this.state) {
      case FrameDecoderState.Header:
        return this.readHeader();
      case FrameDecoderState.Offer:
        return this.offer();
      case FrameDecoderState.Payload:
        return this.deliverPayload();
      case FrameDecoderState.Paused:
      case FrameDecoderState.Ended:
      case FrameDecoderState.Failed:
        return false;
    }
  }

  private readHeader(): boolean {
    if (!this.haveInput()) {
      if (this.endRequested) {
        if (this.headerFill === 0) {
          this.release(FrameDecoderState.Ended);
        } else {
          this.fail(`input ended inside a frame header (${this.headerFill} of ${this.format.headerSize} bytes)`);
        }
      }
      return false;
    }
    const size = this.format.headerSize;
    const chunk = this.chunk;
    let parsed: H | FrameError;
    let length: number;
    const parseAt = this.format.parseHeaderAt;
    try {
      if (this.headerFill === 0 && parseAt !== undefined && chunk.byteLength - this.pos >= size) {
        // The whole header is in this chunk: parse it in place.
        parsed = parseAt.call(this.format, chunk, this.pos);
        this.pos += size;
      } else {
        const take = Math.min(size - this.headerFill, chunk.byteLength - this.pos);
        // Copy byte by byte into the fixed buffer: no per-frame view or array.
        for (let i = 0; i < take; i++) this.headerBuf[this.headerFill + i] = chunk[this.pos + i];
        this.pos += take;
        this.headerFill += take;
        if (this.headerFill < size) return true;
        this.headerFill = 0;
        parsed = this.format.parseHeader(this.headerBuf);
      }
      if (isFrameError(parsed)) {
        this.fail(parsed.message);
        return false;
      }
      length = this.format.payloadLength(parsed);
    } catch (error) {
      this.fail(`header parser failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
    if (!Number.isSafeInteger(length) || length < 0) {
      this.fail(`payload length ${length} is not an integer >= 0`);
      return false;
    }
    this.header = parsed;
    this.remaining = length;
    this.state = FrameDecoderState.Offer;
    return true;
  }

  private offer(): boolean {
    const answer = this.consumer.onFrame(this.header as H);
    if (answer === 'pause') {
      this.state = FrameDecoderState.Paused;
      return false;
    }
    this.header = undefined;
    if (this.remaining === 0) {
      this.state = FrameDecoderState.Header;
      answer.end();
      return true;
    }
    this.sink = answer;
    this.state = FrameDecoderState.Payload;
    return true;
  }

  private deliverPayload(): boolean {
    if (!this.haveInput()) {
      if (this.endRequested) this.fail(`input ended inside a payload (${this.remaining} bytes missing)`);
      return false;
    }
    const take = Math.min(this.remaining, this.chunk.byteLength - this.pos);
    const piece = this.chunk.subarray(this.pos, this.pos + take);
    this.pos += take;
    this.remaining -= take;
    const sink = this.sink as FrameSink;
    if (this.remaining === 0) {
      // Move on before calling out, so a re-entrant push/resume sees a consistent state.
      this.sink = undefined;
      this.state = FrameDecoderState.Header;
      sink.write(piece);
      sink.end();
    } else {
      sink.write(piece);
    }
    return true;
  }

  /** Makes `chunk[pos]` valid if any input is left, dropping references to spent chunks. */
  private haveInput(): boolean {
    if (this.pos < this.chunk.byteLength) return true;
    const next = this.queued.shift();
    if (next === undefined) {
      this.chunk = EMPTY;
      this.pos = 0;
      return false;
    }
    this.queuedBytes -= next.byteLength;
    this.chunk = next;
    this.pos = 0;
    return true;
  }

  private fail(message: string): void {
    this.release(FrameDecoderState.Failed);
    this.consumer.onError(message);
  }

  private release(state: FrameDecoderState): void {
    this.state = state;
    this.chunk = EMPTY;
    this.pos = 0;
    this.queued.length = 0;
    this.queuedBytes = 0;
    this.headerFill = 0;
    this.header = undefined;
    this.sink = undefined;
  }
}
