/**
 * The PMI-2 wire format as Slurm (`srun --mpi=pmi2`) and MPICH's Hydra speak it (notes/multi-host.md):
 * each command is a frame of a 6-character decimal length, then that many bytes of
 * `cmd=<name>;key=value;…;`. Slurm left-justifies the length (`"114   cmd=…"`), Hydra right-justifies
 * it (`"   113cmd=…"`): the prefix is read as its trimmed 6 characters. Pure: no sockets. Peer input
 * never throws — it parses to messages or to a `Pmi2WireError` naming what was wrong; our own
 * output is checked and refused loudly (DatError naming the field).
 */
import { Buffer } from 'node:buffer';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { PmiWireError, quote, type PmiMessage } from './wire.js';

/** Characters of the length prefix. */
export const PMI2_LENGTH_DIGITS = 6;
/** PMI2_MAX_KEYLEN and PMI2_MAX_VALLEN of MPICH's and Slurm's pmi2.h. */
export const PMI2_MAX_KEY_BYTES = 64;
export const PMI2_MAX_VALUE_BYTES = 1024;
/**
 * Longest frame accepted from a peer: a kvs-get reply carries one value of at most 1024 bytes and a
 * fullinit reply a few fields, so 64 KiB is room to spare while keeping a bad peer's cost bounded.
 */
export const PMI2_MAX_FRAME_BYTES = 64 * 1024;

/** Why peer input is not PMI-2. */
export type Pmi2WireProblem =
  | 'bad-length'
  | 'frame-too-long'
  | 'not-utf8'
  | 'malformed'
  | 'unknown-command'
  | 'value-too-long'
  | 'truncated';

/** A PMI-2 protocol error found in peer input (a `PmiWireError`, with what kind of problem it is). */
export class Pmi2WireError extends PmiWireError {
  constructor(
    readonly problem: Pmi2WireProblem,
    message: string,
  ) {
    super(message);
  }
}

/** True for a `Pmi2WireError`. */
export function isPmi2WireError(value: unknown): value is Pmi2WireError {
  return value instanceof Pmi2WireError;
}

/** Commands a PMI-2 client sends, and the reply each gets (`abort` gets none). */
export const PMI2_REPLY_OF: Readonly<Record<string, string | undefined>> = Object.freeze({
  fullinit: 'fullinit-response',
  'job-getid': 'job-getid-response',
  'info-getjobattr': 'info-getjobattr-response',
  'info-getnodeattr': 'info-getnodeattr-response',
  'info-putnodeattr': 'info-putnodeattr-response',
  'kvs-put': 'kvs-put-response',
  'kvs-fence': 'kvs-fence-response',
  'kvs-get': 'kvs-get-response',
  finalize: 'finalize-response',
  abort: undefined,
});

const KNOWN_REPLIES: ReadonlySet<string> = new Set(Object.values(PMI2_REPLY_OF).filter((v): v is string => v !== undefined));

/** Field values of a command our side writes; numbers in decimal, booleans as TRUE/FALSE. */
export type Pmi2FieldsInput = Readonly<Record<string, string | number | boolean>>;

/** `;` separates fields and `=` ends a key; control characters (NUL above all) are cut by C servers. */
const PMI2_KEY_FORBIDDEN = /[;=\p{Cc}]/u;
const PMI2_VALUE_FORBIDDEN = /[;\p{Cc}]/u;

/** How the length prefix is padded: Slurm's style (left-justified) or Hydra's (right-justified). */
export type Pmi2LengthStyle = 'left' | 'right';

/**
 * Formats one command as a frame. Throws DatError INVALID_PARAMETER naming the field when a name or
 * value could not survive the wire, LENGTH_ERROR when a value or the frame is too long.
 */
export function formatPmi2Command(cmd: string, fields: Pmi2FieldsInput = {}, style: Pmi2LengthStyle = 'left'): string {
  if (!(cmd in PMI2_REPLY_OF)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI-2 command ${quote(String(cmd))} is not one of ${Object.keys(PMI2_REPLY_OF).join(', ')}`, { argument: 'cmd' });
  }
  return formatPmi2Frame(cmd, fields, style);
}

/** Formats any message (commands and, for servers and tests, replies) as a frame. */
export function formatPmi2Frame(cmd: string, fields: Pmi2FieldsInput = {}, style: Pmi2LengthStyle = 'left'): string {
  checkName('cmd', cmd);
  let payload = `cmd=${cmd};`;
  for (const [key, raw] of Object.entries(fields)) {
    checkName(`fields.${key}`, key);
    if (key === 'cmd') throw new DatError(DatStatus.INVALID_PARAMETER, 'PMI-2 field key "cmd" is reserved for the command name', { argument: 'fields.cmd' });
    const value = typeof raw === 'boolean' ? (raw ? 'TRUE' : 'FALSE') : String(raw);
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw new DatError(DatStatus.INVALID_PARAMETER, `PMI-2 field ${key} is ${typeof raw}, not a string, number or boolean`, { argument: `fields.${key}` });
    }
    if (PMI2_VALUE_FORBIDDEN.test(value)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `PMI-2 value of field ${key} ${quote(value)} is not allowed: no ";" or control characters`, { argument: `fields.${key}` });
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > PMI2_MAX_VALUE_BYTES) {
      throw new DatError(DatStatus.LENGTH_ERROR, `PMI-2 value of field ${key} is ${bytes} bytes long; at most ${PMI2_MAX_VALUE_BYTES} are allowed (PMI2_MAX_VALLEN)`, { argument: `fields.${key}` });
    }
    payload += `${key}=${value};`;
  }
  const length = Buffer.byteLength(payload, 'utf8');
  if (length > PMI2_MAX_FRAME_BYTES) {
    throw new DatError(DatStatus.LENGTH_ERROR, `PMI-2 command of ${length} bytes exceeds ${PMI2_MAX_FRAME_BYTES}`, { argument: 'fields' });
  }
  const digits = String(length);
  return (style === 'left' ? digits.padEnd(PMI2_LENGTH_DIGITS) : digits.padStart(PMI2_LENGTH_DIGITS)) + payload;
}

function checkName(argument: string, name: unknown): void {
  if (typeof name !== 'string' || name === '' || PMI2_KEY_FORBIDDEN.test(name)) {
    const shown = typeof name === 'string' ? quote(name) : typeof name;
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI-2 name ${shown} of ${argument} is not allowed: non-empty, without ";", "=" or control characters`, { argument });
  }
  if (Buffer.byteLength(name, 'utf8') > PMI2_MAX_KEY_BYTES) {
    throw new DatError(DatStatus.LENGTH_ERROR, `PMI-2 name of ${argument} is longer than ${PMI2_MAX_KEY_BYTES} bytes (PMI2_MAX_KEYLEN)`, { argument });
  }
}

/**
 * Parses a frame's payload (`cmd=x;k=v;…;`). Fields split at `;` and at their first `=`, so a value
 * may hold `=`; the last `;` is optional. `known` (default: the replies a client can get) limits `cmd`.
 */
export function parsePmi2Payload(payload: string, known: ReadonlySet<string> = KNOWN_REPLIES): PmiMessage | Pmi2WireError {
  const body = payload.endsWith(';') ? payload.slice(0, -1) : payload;
  if (body === '') return new Pmi2WireError('malformed', 'empty PMI-2 command');
  let cmd: string | undefined;
  const fields = new Map<string, string>();
  for (const part of body.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return new Pmi2WireError('malformed', `PMI-2 field ${quote(part)} is not key=value (in ${quote(payload)})`);
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (/\p{Cc}/u.test(part)) return new Pmi2WireError('malformed', `PMI-2 field ${quote(part)} contains a control character`);
    if (Buffer.byteLength(value, 'utf8') > PMI2_MAX_VALUE_BYTES) {
      return new Pmi2WireError('value-too-long', `PMI-2 field ${key} has a value of ${Buffer.byteLength(value, 'utf8')} bytes; at most ${PMI2_MAX_VALUE_BYTES} are allowed`);
    }
    if (cmd === undefined) {
      if (key !== 'cmd' || value === '') return new Pmi2WireError('malformed', `a PMI-2 command starts with cmd=<name>, not ${quote(part)}`);
      if (!known.has(value)) return new Pmi2WireError('unknown-command', `unknown PMI-2 command ${quote(value)} (expected one of ${[...known].join(', ')})`);
      cmd = value;
      continue;
    }
    if (key === 'cmd' || fields.has(key)) return new Pmi2WireError('malformed', `PMI-2 field "${key}" appears twice in ${quote(payload)}`);
    fields.set(key, value);
  }
  return { cmd: cmd as string, fields };
}

/** One frame's payload, or the reader's one protocol error. */
export type Pmi2Frame = string | Pmi2WireError;

/**
 * Splits a PMI-2 byte stream into frames: reads the 6-character length, then that many bytes. One
 * read may carry several frames or part of one. Memory stays bounded by `maxFrameBytes`. After the
 * first error all input is ignored (the stream is unusable).
 */
export class Pmi2FrameReader {
  readonly #maxFrameBytes: number;
  readonly #header = new Uint8Array(PMI2_LENGTH_DIGITS);
  #headerBytes = 0;
  #body: Uint8Array | undefined;
  #bodyBytes = 0;
  #failed = false;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(maxFrameBytes = PMI2_MAX_FRAME_BYTES) {
    if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < 1) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `maxFrameBytes ${maxFrameBytes} is not an integer >= 1`, { argument: 'maxFrameBytes' });
    }
    this.#maxFrameBytes = maxFrameBytes;
  }

  get failed(): boolean {
    return this.#failed;
  }

  /** True while a frame is partly read. */
  get inFrame(): boolean {
    return this.#headerBytes > 0 || this.#body !== undefined;
  }

  /** The frames `chunk` completes, in order; a `Pmi2WireError`, if any, is last. */
  push(chunk: Uint8Array): Pmi2Frame[] {
    const out: Pmi2Frame[] = [];
    let at = 0;
    while (!this.#failed && at < chunk.length) {
      if (this.#body === undefined) {
        const take = Math.min(PMI2_LENGTH_DIGITS - this.#headerBytes, chunk.length - at);
        this.#header.set(chunk.subarray(at, at + take), this.#headerBytes);
        this.#headerBytes += take;
        at += take;
        if (this.#headerBytes < PMI2_LENGTH_DIGITS) break;
        const length = this.#frameLength();
        if (length instanceof Pmi2WireError) return this.#fail(out, length);
        this.#headerBytes = 0;
        this.#body = new Uint8Array(length);
        this.#bodyBytes = 0;
      }
      const body = this.#body;
      const take = Math.min(body.length - this.#bodyBytes, chunk.length - at);
      body.set(chunk.subarray(at, at + take), this.#bodyBytes);
      this.#bodyBytes += take;
      at += take;
      if (this.#bodyBytes < body.length) break;
      this.#body = undefined;
      let text: string;
      try {
        text = this.#decoder.decode(body);
      } catch {
        return this.#fail(out, new Pmi2WireError('not-utf8', `a PMI-2 frame of ${body.length} bytes is not valid UTF-8`));
      }
      out.push(text);
    }
    return out;
  }

  /** The stream ended: a partly read frame is a protocol error (a truncated reply). */
  end(): Pmi2WireError | undefined {
    if (this.#failed || !this.inFrame) return undefined;
    const have = this.#body === undefined ? `${this.#headerBytes} of ${PMI2_LENGTH_DIGITS} length characters` : `${this.#bodyBytes} of ${this.#body.length} bytes`;
    this.#failed = true;
    return new Pmi2WireError('truncated', `the PMI-2 stream ended in the middle of a frame (${have})`);
  }

  #frameLength(): number | Pmi2WireError {
    const text = String.fromCharCode(...this.#header);
    const digits = text.trim();
    if (!/^\d{1,6}$/.test(digits)) return new Pmi2WireError('bad-length', `PMI-2 length prefix ${quote(text)} is not a decimal number padded with spaces to ${PMI2_LENGTH_DIGITS} characters`);
    const length = Number(digits);
    if (length < 1) return new Pmi2WireError('bad-length', 'PMI-2 frame of length 0');
    if (length > this.#maxFrameBytes) return new Pmi2WireError('frame-too-long', `a PMI-2 frame of ${length} bytes exceeds the maximum of ${this.#maxFrameBytes}`);
    return length;
  }

  #fail(out: Pmi2Frame[], error: Pmi2WireError): Pmi2Frame[] {
    this.#failed = true;
    this.#body = undefined;
    this.#headerBytes = 0;
    out.push(error);
    return out;
  }
}
