import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { ParameterSpec } from '../dat/provider.js';

/** A parameter's parsed value: what `ParameterSpec.type` promises. */
export type ParameterValue = string | number | boolean;

const SIZE_SUFFIXES: Readonly<Record<string, number>> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
const INTEGER_TEXT = /^([+-]?\d+)([kmg])?$/i;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** What a spec accepts, in words, for error messages and `dapl info`. */
export function describeAllowed(spec: ParameterSpec): string {
  switch (spec.type) {
    case 'integer':
      return `an integer${describeRange(spec)} (suffixes k, m, g multiply by 1024, 1024², 1024³)`;
    case 'number':
      return `a number${describeRange(spec)}`;
    case 'boolean':
      return 'a boolean (true/false, 1/0, yes/no, on/off)';
    case 'string':
      return 'a string';
    case 'enum':
      return `one of ${(spec.values ?? []).join(', ')}`;
  }
}

function describeRange(spec: ParameterSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return ` in [${spec.min}, ${spec.max}]`;
  if (spec.min !== undefined) return ` ≥ ${spec.min}`;
  if (spec.max !== undefined) return ` ≤ ${spec.max}`;
  return '';
}

/**
 * Parse a parameter value from JSON (numbers, booleans, strings) or from text (environment,
 * flags). `where` names the source (`env DAPL_LOG_LEVEL`, `file /x/dapl.config.json`,
 * `flag --log.level`, `default`); `key` is the dotted key reported as the error's argument.
 */
export function parseParameterValue(spec: ParameterSpec, raw: unknown, where: string, key: string = spec.name): ParameterValue {
  const value = parseByType(spec, raw);
  if (value === undefined) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `invalid value for ${key} from ${where}: ${showRaw(raw)}; expected ${describeAllowed(spec)}`,
      { argument: key },
    );
  }
  return value;
}

function parseByType(spec: ParameterSpec, raw: unknown): ParameterValue | undefined {
  switch (spec.type) {
    case 'integer':
      return inRange(spec, parseInteger(raw));
    case 'number':
      return inRange(spec, parseNumber(raw));
    case 'boolean':
      return parseBoolean(raw);
    case 'string':
      return typeof raw === 'string' ? raw : undefined;
    case 'enum':
      return parseEnum(spec, raw);
  }
}

function parseInteger(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  const match = INTEGER_TEXT.exec(raw.trim());
  if (match === null) return undefined;
  const base = Number(match[1]);
  const scale = match[2] === undefined ? 1 : SIZE_SUFFIXES[match[2].toLowerCase()]!;
  const value = base * scale;
  return Number.isSafeInteger(value) ? value : undefined;
}

function parseNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || !NUMBER_TEXT.test(raw.trim())) return undefined;
  const value = Number(raw.trim());
  return Number.isFinite(value) ? value : undefined;
}

function inRange(spec: ParameterSpec, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (spec.min !== undefined && value < spec.min) return undefined;
  if (spec.max !== undefined && value > spec.max) return undefined;
  return value;
}

function parseBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 0 || raw === 1) return raw === 1;
  if (typeof raw !== 'string') return undefined;
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** Enum values match case-insensitively (`DAPL_LOG_LEVEL=DEBUG`) and come back in their declared form. */
function parseEnum(spec: ParameterSpec, raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const wanted = raw.trim().toLowerCase();
  return (spec.values ?? []).find((v) => v.toLowerCase() === wanted);
}

function showRaw(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw);
  if (raw === null || typeof raw !== 'object') return String(raw);
  try {
    return JSON.stringify(raw);
  } catch {
    return Object.prototype.toString.call(raw);
  }
}
