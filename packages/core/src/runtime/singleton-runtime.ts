import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { processWaits } from './declared-waits.js';
import type { Clock, Runtime } from './runtime.js';
import { WallClock } from './wall-clock.js';

/** Options of `SingletonRuntime`. */
export interface SingletonRuntimeOptions {
  /** Default: the wall clock. */
  readonly clock?: Clock;
  /** Default `process.exit`; tests pass a recorder. */
  readonly exit?: (code: number) => void;
  /** Where `abort` writes its message. Default: stderr. */
  readonly writeError?: (text: string) => void;
}

/** The runtime of a program started with plain `node`: rank 0 of a job of size 1 (DESIGN §5). */
export class SingletonRuntime implements Runtime {
  readonly rank = 0;
  readonly size = 1;
  readonly clock: Clock;
  readonly #kvs = new Map<string, string>();
  readonly #exit: (code: number) => void;
  readonly #writeError: (text: string) => void;
  #finalized = false;

  constructor(options: SingletonRuntimeOptions = {}) {
    this.clock = options.clock ?? new WallClock();
    this.#exit = options.exit ?? ((code) => process.exit(code));
    this.#writeError = options.writeError ?? ((text) => void process.stderr.write(text));
  }

  /** Keys and values follow the PMI-1 wire rules (no spaces, `=` only in values) so code that works here works under PMI. */
  async put(key: string, value: string): Promise<void> {
    this.#checkLive('put');
    checkKvsText('key', key, /^[^\s=]+$/);
    checkKvsText('value', value, /^\S*$/);
    this.#kvs.set(key, value);
  }

  async fence(): Promise<void> {
    this.#checkLive('fence');
  }

  async get(key: string): Promise<string> {
    this.#checkLive('get');
    const value = this.#kvs.get(key);
    if (value === undefined) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `no value was put for key "${key}" in this job (size 1)`, { argument: 'key' });
    }
    return value;
  }

  async barrier(): Promise<void> {
    this.#checkLive('barrier');
  }

  /** Holds the process while pending (see `DeclaredWaits`): a library that unrefs its sockets still waits. */
  declareWait<T>(what: string, promise: Promise<T>): Promise<T> {
    return processWaits.declare(what, promise);
  }

  async abort(code: number, message: string): Promise<never> {
    this.#writeError(`dapl: rank 0 aborted the job (exit code ${code}): ${message}\n`);
    this.#exit(code);
    // Only reached when `exit` was replaced (tests): the job is over either way.
    throw new DatError(DatStatus.ABORT, `job aborted with code ${code}: ${message}`);
  }

  async finalize(): Promise<void> {
    this.#finalized = true;
  }

  #checkLive(call: string): void {
    if (this.#finalized) throw new DatError(DatStatus.INVALID_STATE, `runtime.${call}() after finalize()`);
  }
}

function checkKvsText(argument: 'key' | 'value', text: string, allowed: RegExp): void {
  if (typeof text === 'string' && allowed.test(text)) return;
  const rule = argument === 'key' ? 'keys must be non-empty and contain no whitespace or "="' : 'values must contain no whitespace';
  throw new DatError(DatStatus.INVALID_PARAMETER, `KVS ${argument} ${JSON.stringify(text)} is not allowed: ${rule}`, { argument });
}
