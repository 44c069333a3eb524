import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/** Fewer bytes than this would make the job secret guessable. */
export const MIN_JOB_KEY_BYTES = 16;

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/**
 * Decode the job secret from its text form: hex (checked first: a hex string is also valid
 * base64url) or base64url. `where` names the source for the error message.
 */
export function decodeJobKey(text: string, where: string): Uint8Array {
  const trimmed = text.trim();
  let bytes: Uint8Array | undefined;
  if (HEX.test(trimmed)) bytes = new Uint8Array(Buffer.from(trimmed, 'hex'));
  else if (BASE64URL.test(trimmed)) bytes = new Uint8Array(Buffer.from(trimmed, 'base64url'));
  if (bytes === undefined || bytes.length < MIN_JOB_KEY_BYTES) {
    const found = bytes === undefined ? 'text that is neither hex nor base64url' : `${bytes.length} bytes`;
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `invalid job key from ${where}: found ${found}; expected at least ${MIN_JOB_KEY_BYTES} bytes written as hex or base64url`,
      { argument: 'job.key' },
    );
  }
  return bytes;
}

/** A job key handed to `openIa` (`options.jobKey`), checked: bytes, at least MIN_JOB_KEY_BYTES of them. */
export function requireJobKeyOption(jobKey: unknown): Uint8Array {
  if (!(jobKey instanceof Uint8Array) || jobKey.length < MIN_JOB_KEY_BYTES) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `options.jobKey must be a Uint8Array of at least ${MIN_JOB_KEY_BYTES} bytes`, { argument: 'options.jobKey' });
  }
  return jobKey;
}

/**
 * The key an IA authenticates its job with: `options.jobKey` (checked), else `DAPL_JOB_KEY` from
 * `env`, else `fallback` (a provider's key private to its process, so that its IAs reach each other).
 */
export function iaJobKey(options: { readonly jobKey?: unknown }, fallback: Uint8Array, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  if (options.jobKey !== undefined) return requireJobKeyOption(options.jobKey);
  const fromEnv = env.DAPL_JOB_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return decodeJobKey(fromEnv, 'DAPL_JOB_KEY');
  return fallback;
}

/** The text form used in `DAPL_JOB_KEY` (hex). */
export function encodeJobKey(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex');
}
