/** What the PMI-1 and PMI-2 runtimes share: finding the launcher in the environment, and how a rank ends. */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { Clock } from '../runtime.js';
import type { SingletonRuntimeOptions } from '../singleton-runtime.js';
import { WallClock } from '../wall-clock.js';
import { readPmiEnvironment, type PmiEnvironment } from './environment.js';

/** The launcher's PMI variables of `env`; INVALID_STATE when there are none. */
export function requirePmiEnvironment(env: NodeJS.ProcessEnv): PmiEnvironment {
  const settings = readPmiEnvironment(env);
  if (settings === undefined) {
    throw new DatError(DatStatus.INVALID_STATE, 'neither PMI_FD nor PMI_PORT is set: this process was not started by a PMI launcher', { argument: 'env' });
  }
  return settings;
}

export interface RankProcessHooks {
  readonly clock: Clock;
  readonly exit: (code: number) => void;
  readonly writeError: (text: string) => void;
}

/** The options' clock, exit and error output, or wall time, `process.exit` and stderr. */
export function rankProcessHooks(options: SingletonRuntimeOptions): RankProcessHooks {
  return {
    clock: options.clock ?? new WallClock(),
    exit: options.exit ?? ((code) => process.exit(code)),
    writeError: options.writeError ?? ((text) => void process.stderr.write(text)),
  };
}

/** An abort's exit code: an integer in [0, 255]. */
export function checkAbortCode(code: number): void {
  if (!Number.isSafeInteger(code) || code < 0 || code > 255) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `exit code ${code} is not an integer in [0, 255]`, { argument: 'code' });
  }
}

enum LifecycleState {
  Ready = 'ready',
  Finalizing = 'finalizing',
  Finalized = 'finalized',
  Aborted = 'aborted',
}

/**
 * The life of a PMI rank, the same under PMI-1 and PMI-2: calls are refused after `finalize()` or
 * `abort()`; finalize runs once; abort says why on stderr, sends its command, exits; a rank whose
 * launcher went away ends itself.
 */
export class PmiRankLifecycle {
  #state = LifecycleState.Ready;
  #finalizing: Promise<void> | undefined;

  constructor(
    private readonly rank: () => number,
    private readonly hooks: RankProcessHooks,
  ) {}

  /** Throws unless the rank may still talk to the server. */
  checkLive(call: string): void {
    if (this.#state === LifecycleState.Aborted) throw new DatError(DatStatus.ABORT, `runtime.${call}() after abort()`);
    if (this.#state !== LifecycleState.Ready) throw new DatError(DatStatus.INVALID_STATE, `runtime.${call}() after finalize()`);
  }

  /** Runs `conversation` (the finalize request, then closing) once; later calls share its outcome. */
  finalize(conversation: () => Promise<void>): Promise<void> {
    if (this.#state === LifecycleState.Aborted) return Promise.reject(new DatError(DatStatus.ABORT, 'runtime.finalize() after abort()'));
    this.#finalizing ??= (async () => {
      this.#state = LifecycleState.Finalizing;
      try {
        await conversation();
      } finally {
        this.#state = LifecycleState.Finalized;
      }
    })();
    return this.#finalizing;
  }

  async abort(code: number, message: string, send: () => Promise<void>): Promise<never> {
    checkAbortCode(code);
    this.#state = LifecycleState.Aborted;
    this.hooks.writeError(`dapl: rank ${this.rank()} aborting the job (exit code ${code}): ${message}\n`);
    await send();
    this.hooks.exit(code);
    // Only reached when `exit` was replaced (tests): the job is over either way.
    throw new DatError(DatStatus.ABORT, `job aborted by rank ${this.rank()} with code ${code}: ${message}`);
  }

  /** The launcher is gone (or broke the connection) while this rank still runs: nobody will stop it but itself. */
  serverLost(reason: string): void {
    if (this.#state !== LifecycleState.Ready) return;
    this.#state = LifecycleState.Aborted;
    this.hooks.writeError(`dapl: rank ${this.rank()} lost its PMI connection to the launcher (${reason}); exiting\n`);
    this.hooks.exit(1);
  }
}
