/**
 * The PMI-1 "simple" wire format, as MPICH's Hydra speaks it (notes/pmi-hydra.md): one command per
 * line, `cmd=<name> key=value key=value…\n`. Pure: no sockets. Peer input never throws — a line
 * parses to a message or to a `PmiWireError`; our own output is checked and refused loudly.
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';

const PMI_WIRE_ERROR_BRAND = Symbol.for('@dapl/core/pmi-wire-error');

/** One PMI-1 command or reply: `cmd` and its other fields, in wire order. */
export interface PmiMessage {
  readonly cmd: string;
  readonly fields: ReadonlyMap<string, string>;
}

/** A protocol error found in peer input. Returned, never thrown. */
export class PmiWireError {
  readonly name = 'PmiWireError';
  readonly [PMI_WIRE_ERROR_BRAND] = true;
  constructor(readonly message: string) {}
}

/** True for a `PmiWireError` (also one made by another copy of core). */
export function isPmiWireError(value: unknown): value is PmiWireError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PMI_WIRE_ERROR_BRAND] === true;
}

/** Field values our side writes; numbers are written in decimal. */
export type PmiFieldsInput = Readonly<Record<string, string | number>>;

// Whitespace ends a token on the wire and control characters (NUL above all) are cut or mangled by
// C servers, so neither may appear in a key or value.
/** Characters no PMI value may contain. */
export const PMI_VALUE_FORBIDDEN = /[\s\p{Cc}]/u;
/** Characters no PMI key may contain. */
export const PMI_KEY_FORBIDDEN = /[\s\p{Cc}=]/u;

/** Parses one line (with or without its final `\n`). Tokens split at their first `=`; `=` in a value is kept. */
export function parsePmiLine(text: string): PmiMessage | PmiWireError {
  const line = text.endsWith('\n') ? text.slice(0, -1) : text;
  // Hydra writes single spaces; runs of spaces are tolerated as C's PMI parser does.
  const tokens = line.split(' ').filter((token) => token !== '');
  if (tokens.length === 0) return new PmiWireError('empty PMI line');
  let cmd: string | undefined;
  const fields = new Map<string, string>();
  for (const token of tokens) {
    const eq = token.indexOf('=');
    if (eq <= 0) return new PmiWireError(`PMI token ${quote(token)} is not key=value (in line ${quote(line)})`);
    const key = token.slice(0, eq);
    const value = token.slice(eq + 1);
    if (PMI_VALUE_FORBIDDEN.test(token)) {
      return new PmiWireError(`PMI token ${quote(token)} contains whitespace or a control character (in line ${quote(line)})`);
    }
    if (cmd === undefined) {
      if (key !== 'cmd' || value === '') return new PmiWireError(`a PMI line starts with cmd=<name>, not ${quote(token)}`);
      cmd = value;
      continue;
    }
    if (key === 'cmd' || fields.has(key)) return new PmiWireError(`PMI field "${key}" appears twice in line ${quote(line)}`);
    fields.set(key, value);
  }
  return { cmd: cmd as string, fields };
}

/**
 * Formats `cmd=<cmd> k=v…\n`. Throws DatError INVALID_PARAMETER naming the field when a key or value
 * could not survive the wire (whitespace, newline, control character, `=` in a key, empty key).
 */
export function formatPmiLine(cmd: string, fields: PmiFieldsInput = {}): string {
  checkToken('cmd', 'cmd', cmd, PMI_KEY_FORBIDDEN, false);
  let line = `cmd=${cmd}`;
  for (const [key, raw] of Object.entries(fields)) {
    checkToken(`fields.${key}`, 'key', key, PMI_KEY_FORBIDDEN, false);
    if (key === 'cmd') throw new DatError(DatStatus.INVALID_PARAMETER, 'PMI field key "cmd" is reserved for the command name', { argument: 'fields.cmd' });
    const value = typeof raw === 'number' ? String(raw) : raw;
    checkToken(`fields.${key}`, 'value', value, PMI_VALUE_FORBIDDEN, true);
    line += ` ${key}=${value}`;
  }
  return `${line}\n`;
}

function checkToken(argument: string, what: 'cmd' | 'key' | 'value', text: unknown, forbidden: RegExp, mayBeEmpty: boolean): void {
  if (typeof text !== 'string') {
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI ${what} of ${argument} is ${typeof text}, not a string`, { argument });
  }
  if (!mayBeEmpty && text === '') {
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI ${what} of ${argument} is empty; it must be at least 1 character`, { argument });
  }
  if (forbidden.test(text)) {
    const rule = what === 'value' ? 'no whitespace or control characters' : 'no whitespace, control characters or "="';
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI ${what} of ${argument} ${quote(text)} is not allowed: PMI-1 allows ${rule}`, { argument });
  }
}

/** JSON-quoted (control characters visible), shortened so peer garbage cannot make huge messages. */
export function quote(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
