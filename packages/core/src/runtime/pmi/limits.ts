/**
 * The KVS limits a PMI-1 server announces with `cmd=maxes`, and the checks our side applies before a
 * key or value goes on the wire: Hydra cuts over-long values and values with spaces silently while
 * answering rc=0 (notes/pmi-hydra.md), so we refuse them loudly instead.
 */
import { Buffer } from 'node:buffer';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { PMI_MAX_LINE_BYTES } from './line-reader.js';
import { PMI_KEY_FORBIDDEN, PMI_VALUE_FORBIDDEN } from './wire.js';

/** The PMI-1 server's limits (`get_maxes`): the longest KVS name, key and value. */
export interface PmiLimits {
  /** `kvsname_max`: longest KVS name, counting C's terminating NUL. */
  readonly kvsnameMax: number;
  /** `keylen_max`: longest key (Hydra accepts keys of exactly this many characters). */
  readonly keylenMax: number;
  /** `vallen_max`: counts C's terminating NUL, so values hold at most `vallenMax - 1` bytes. */
  readonly vallenMax: number;
}

/** What MPICH 4.0.2's Hydra announces. */
export const HYDRA_PMI_LIMITS: PmiLimits = Object.freeze({ kvsnameMax: 256, keylenMax: 64, vallenMax: 1024 });

export function maxKeyBytes(limits: PmiLimits): number {
  return limits.keylenMax;
}

export function maxValueBytes(limits: PmiLimits): number {
  return limits.vallenMax - 1;
}

/** Why a KVS key or value cannot be stored, or undefined if it can. */
export interface KvsProblem {
  readonly status: DatStatus.INVALID_PARAMETER | DatStatus.LENGTH_ERROR;
  readonly argument: 'key' | 'value';
  readonly message: string;
}

export function kvsKeyProblem(key: unknown, limits: PmiLimits): KvsProblem | undefined {
  if (typeof key !== 'string' || key === '' || PMI_KEY_FORBIDDEN.test(key)) {
    const shown = typeof key === 'string' ? JSON.stringify(key.slice(0, 80)) : typeof key;
    return { status: DatStatus.INVALID_PARAMETER, argument: 'key', message: `KVS key ${shown} is not allowed: keys must be non-empty and contain no whitespace, control characters or "="` };
  }
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > maxKeyBytes(limits)) {
    return { status: DatStatus.LENGTH_ERROR, argument: 'key', message: `KVS key is ${bytes} bytes long; the PMI server allows at most ${maxKeyBytes(limits)} (keylen_max ${limits.keylenMax})` };
  }
  return undefined;
}

export function kvsValueProblem(value: unknown, limits: PmiLimits): KvsProblem | undefined {
  if (typeof value !== 'string' || PMI_VALUE_FORBIDDEN.test(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
    return { status: DatStatus.INVALID_PARAMETER, argument: 'value', message: `KVS value ${shown} is not allowed: values must contain no whitespace or control characters (encode them, e.g. base64url)` };
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > maxValueBytes(limits)) {
    return { status: DatStatus.LENGTH_ERROR, argument: 'value', message: `KVS value is ${bytes} bytes long; the PMI server allows at most ${maxValueBytes(limits)} (vallen_max ${limits.vallenMax} counts a terminating NUL)` };
  }
  return undefined;
}

/** Throws the problem of a key or value as a DatError naming the argument. */
export function throwKvsProblem(problem: KvsProblem | undefined): void {
  if (problem !== undefined) throw new DatError(problem.status, problem.message, { argument: problem.argument });
}

/** The largest limit we accept, ours or a server's: keeps a line, and so a peer's buffer, bounded. */
export const PMI_LIMIT_CEILING = 1 << 20;

/** The longest line a put or a get reply can need under these limits (with room for the field names). */
export function pmiLineBytesFor(limits: PmiLimits): number {
  return Math.max(PMI_MAX_LINE_BYTES, limits.kvsnameMax + limits.keylenMax + limits.vallenMax + 128);
}

/** Why limits are unusable (each must be an integer in [2, PMI_LIMIT_CEILING]), or undefined. */
export function pmiLimitsProblem(limits: PmiLimits, argument: string): { argument: string; message: string } | undefined {
  for (const name of ['kvsnameMax', 'keylenMax', 'vallenMax'] as const) {
    const value = limits[name];
    // 2 is the least that leaves room for one byte besides the NUL the counts include.
    if (!Number.isSafeInteger(value) || value < 2 || value > PMI_LIMIT_CEILING) {
      return { argument: `${argument}.${name}`, message: `${argument}.${name} ${value} is not an integer in [2, ${PMI_LIMIT_CEILING}]` };
    }
  }
  return undefined;
}
