import { isAbsolute, resolve } from 'node:path';
import { UsageError, type ParsedArgs } from '../cli/cli-types.js';

/**
 * The most ranks `-n` takes: what the simulator's kernel can run in one process. What a job may
 * really have depends on its provider (`rankLimitProblem`): 1,024 processes, or a simulated
 * fabric's `maxNodes`.
 */
export const MAX_RANKS = 1 << 24;
/** setTimeout's limit, in seconds. */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A checked `dapl run` command line. */
export interface RunRequest {
  readonly size: number;
  /** Absolute path of the program; whether it exists is checked later. */
  readonly program: string;
  readonly args: readonly string[];
  readonly provider?: string;
  /** Absolute path of `--config`. */
  readonly configFile?: string;
  readonly tagOutput: boolean;
  readonly timeoutMs?: number;
}

const COMMAND = 'run';

/** Check the parsed options and positionals of `dapl run`; paths are resolved against `cwd`. Throws `UsageError`. */
export function parseRunArguments({ values, positionals }: ParsedArgs, cwd: string): RunRequest {
  const size = parseSize(values.np);
  const [program, ...args] = positionals;
  if (program === undefined || program === '') {
    throw new UsageError('no program given: expected dapl run -n N [options] [--] program.mjs [args...]', COMMAND);
  }
  const provider = stringValue(values.provider);
  if (provider === '') throw new UsageError('--provider must name a provider registry key, got an empty string', COMMAND);
  const config = stringValue(values.config);
  if (config === '') throw new UsageError('--config must name a file, got an empty string', COMMAND);
  const timeout = stringValue(values.timeout);
  return {
    size,
    program: absolute(program, cwd),
    args,
    provider,
    configFile: config === undefined ? undefined : absolute(config, cwd),
    tagOutput: values['tag-output'] === true,
    timeoutMs: timeout === undefined ? undefined : parseTimeoutMs(timeout),
  };
}

function parseSize(value: string | boolean | undefined): number {
  if (typeof value !== 'string') throw new UsageError(`-n N is required: the number of ranks, an integer from 1 to ${MAX_RANKS}`, COMMAND);
  const size = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_RANKS) {
    throw new UsageError(`-n must be an integer from 1 to ${MAX_RANKS} (the number of ranks), got "${value}"`, COMMAND);
  }
  return size;
}

function parseTimeoutMs(value: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(`--timeout must be a number of seconds greater than 0 and at most ${MAX_TIMEOUT_SECONDS}, got "${value}"`, COMMAND);
  }
  return Math.ceil(seconds * 1000);
}

function stringValue(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}
