/**
 * `PmiRuntime`: a rank of a job launched by a PMI-1 server — MPICH's Hydra (`mpiexec.mpich`), or
 * `dapl run` (DESIGN §5). Keys and values are checked against the server's limits and the wire
 * rules before anything is sent, because Hydra mangles bad ones silently.
 */
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { encodeWaitReport, processWaits } from '../declared-waits.js';
import type { Clock, Runtime } from '../runtime.js';
import type { SingletonRuntimeOptions } from '../singleton-runtime.js';
import { openPmiStream } from './pmi-stream.js';
import { PmiRankLifecycle, rankProcessHooks, requirePmiEnvironment } from './pmi-process-hooks.js';
import { localRanksFromMapping } from './process-mapping.js';
import { answerPmiChallenge, PMI_AUTH_ENV, PMI_AUTH_SCHEME } from './pmi-port-auth.js';
import { JOB_KEY_ENV } from '../../config/core-parameters.js';
import { decodeJobKey } from '../../config/job-key.js';
import { checkPmiIdentity, pmiHandshake, type PmiIdentity, type PmiSession } from './handshake.js';
import { kvsKeyProblem, kvsValueProblem, throwKvsProblem, type PmiLimits } from './limits.js';
import { PmiClientChannel } from './pmi-client-channel.js';
import { WAIT_QUERY, WAIT_REPORT } from './wait-query.js';
import { intField, pmiMessageText, textField } from './replies.js';

/** Options of `PmiRuntime.connect` (and of `Pmi2Runtime`'s). */
export interface PmiRuntimeOptions extends SingletonRuntimeOptions {
  readonly logger?: Logger;
  /** How long to wait for the reply to a request other than a barrier. Default 60 s. */
  readonly replyTimeoutMs?: number;
  /**
   * How long a barrier (or fence) may wait. Default: no limit — a barrier waits for the slowest
   * rank, and a rank that dies makes the launcher close the job's connections, which ends the wait.
   */
  readonly barrierTimeoutMs?: number;
  /** How long to wait for the TCP connection to `PMI_PORT`. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Longest line accepted from the server before it announces its limits. Default 4096. */
  readonly maxLineBytes?: number;
  /**
   * End the process (exit code 1, after a line on stderr) when the PMI connection is lost before
   * finalize. `connect` sets it for `dapl run --hosts` ranks (`DAPL_PMI_AUTH`): a rank started over ssh
   * is not stopped with its ssh client, but it does see its launcher's connection close.
   */
  readonly exitWhenServerLost?: boolean;
  /** Read `PMI_process_mapping` from the KVS at start (one request more). `connect` sets it. */
  readonly readProcessMapping?: boolean;
}

export const DEFAULT_REPLY_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * A rank of a job launched by a PMI-1 server (Hydra's `mpiexec.mpich`, `dapl run`); keys and values
 * are checked against the server's limits before they are sent, since Hydra mangles bad ones silently.
 */
export class PmiRuntime implements Runtime {
  readonly rank: number;
  readonly size: number;
  readonly clock: Clock;
  readonly kvsName: string;
  readonly appnum: number;
  readonly limits: PmiLimits;
  /** The ranks on this rank's host, from the KVS's `PMI_process_mapping`; undefined when the server has none. */
  readonly localRanks: readonly number[] | undefined;
  readonly #channel: PmiClientChannel;
  readonly #life: PmiRankLifecycle;
  readonly #replyTimeoutMs: number | undefined;
  readonly #barrierTimeoutMs: number | undefined;

  private constructor(channel: PmiClientChannel, session: PmiSession, options: PmiRuntimeOptions) {
    this.#channel = channel;
    this.rank = session.rank;
    this.size = session.size;
    this.kvsName = session.kvsName;
    this.appnum = session.appnum;
    this.limits = session.limits;
    this.localRanks = localRanksOrUndefined(session.processMapping, session.size, session.rank);
    const hooks = rankProcessHooks(options);
    this.clock = hooks.clock;
    this.#life = new PmiRankLifecycle(() => this.rank, hooks);
    this.#replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    this.#barrierTimeoutMs = options.barrierTimeoutMs;
    // `dapl run` asks on --timeout, SIGINT and SIGTERM what each rank waits for, before it stops them.
    channel.onNotice(WAIT_QUERY, () => void channel.sendNow(WAIT_REPORT, { waits: encodeWaitReport(processWaits.report()) }));
  }

  /** Listed in the answer to `dapl run`'s question (see `DeclaredWaits`); holds the process while pending. */
  declareWait<T>(what: string, promise: Promise<T>): Promise<T> {
    return processWaits.declare(what, promise);
  }

  /** Joins the job described by `PMI_FD`/`PMI_RANK`/`PMI_SIZE` or `PMI_PORT`/`PMI_ID`. */
  static async connect(env: NodeJS.ProcessEnv = process.env, options: PmiRuntimeOptions = {}): Promise<PmiRuntime> {
    const settings = requirePmiEnvironment(env);
    const stream = await openPmiStream(settings, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    if (settings.kind === 'port' && env[PMI_AUTH_ENV] !== undefined) {
      if (env[PMI_AUTH_ENV] !== PMI_AUTH_SCHEME) {
        stream.destroy();
        throw new DatError(DatStatus.INVALID_PARAMETER, `${PMI_AUTH_ENV}=${JSON.stringify(env[PMI_AUTH_ENV])} is not ${PMI_AUTH_SCHEME}`, { argument: PMI_AUTH_ENV });
      }
      const keyText = env[JOB_KEY_ENV];
      if (keyText === undefined || keyText === '') {
        stream.destroy();
        throw new DatError(DatStatus.INVALID_PARAMETER, `${PMI_AUTH_ENV} is set but ${JOB_KEY_ENV} is not: the PMI server authenticates ranks by the job key`, { argument: JOB_KEY_ENV });
      }
      await answerPmiChallenge(stream, decodeJobKey(keyText, `env ${JOB_KEY_ENV}`), settings.pmiId, options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
    }
    const identity: PmiIdentity = settings.kind === 'fd' ? { rank: settings.rank, size: settings.size } : { pmiId: settings.pmiId };
    return PmiRuntime.overStream(stream, identity, { exitWhenServerLost: settings.kind === 'port' && env[PMI_AUTH_ENV] !== undefined, readProcessMapping: true, ...options });
  }

  /** Speaks PMI over a stream that is already connected (tests; launchers that pass their own). */
  static async overStream(stream: Duplex, identity: PmiIdentity, options: PmiRuntimeOptions = {}): Promise<PmiRuntime> {
    checkPmiIdentity(identity);
    checkTimeout(options.replyTimeoutMs, 'replyTimeoutMs');
    checkTimeout(options.barrierTimeoutMs, 'barrierTimeoutMs');
    let runtime: PmiRuntime | undefined;
    const onFailure = options.exitWhenServerLost === true ? (_: DatStatus, reason: string) => {
          if (runtime !== undefined) runtime.#life.serverLost(reason);
        } : undefined;
    const channel = new PmiClientChannel(stream, { maxLineBytes: options.maxLineBytes, logger: options.logger, onFailure });
    try {
      const session = await pmiHandshake(channel, identity, options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS, options.readProcessMapping === true);
      runtime = new PmiRuntime(channel, session, options);
      return runtime;
    } catch (error) {
      stream.destroy();
      throw error;
    }
  }

  async put(key: string, value: string): Promise<void> {
    this.#life.checkLive('put');
    throwKvsProblem(kvsKeyProblem(key, this.limits));
    throwKvsProblem(kvsValueProblem(value, this.limits));
    const [reply] = await this.#channel.request('put', { kvsname: this.kvsName, key, value }, ['put_result'], this.#replyTimeoutMs);
    const rc = intField(reply, 'rc');
    if (rc === undefined) throw this.#channel.fail('put', `malformed reply ${pmiMessageText(reply)}: no integer rc`);
    if (rc !== 0) {
      throw new DatError(DatStatus.INTERNAL_ERROR, `PMI put of key "${key}" failed: the server answered ${pmiMessageText(reply)}`, { argument: 'key' });
    }
  }

  /** PMI-1 has no separate fence: a barrier makes every earlier put visible. */
  fence(): Promise<void> {
    return this.barrier();
  }

  async barrier(): Promise<void> {
    this.#life.checkLive('barrier');
    const [reply] = await this.#channel.request('barrier_in', {}, ['barrier_out'], this.#barrierTimeoutMs);
    // Hydra's barrier_out carries no rc; our server adds rc=-1 when a rank left and the barrier can never complete.
    const rc = reply.fields.has('rc') ? intField(reply, 'rc') : 0;
    if (rc !== 0) {
      throw new DatError(DatStatus.CONNECTION_BROKEN, `PMI barrier_in failed: the server answered ${pmiMessageText(reply)}`);
    }
  }

  async get(key: string): Promise<string> {
    this.#life.checkLive('get');
    throwKvsProblem(kvsKeyProblem(key, this.limits));
    const [reply] = await this.#channel.request('get', { kvsname: this.kvsName, key }, ['get_result'], this.#replyTimeoutMs);
    const rc = intField(reply, 'rc');
    if (rc === undefined) throw this.#channel.fail('get', `malformed reply ${pmiMessageText(reply)}: no integer rc`);
    if (rc !== 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `no value was put for key "${key}" in KVS ${this.kvsName} (not found: the server answered ${pmiMessageText(reply)})`, { argument: 'key' });
    }
    const value = textField(reply, 'value');
    if (value === undefined) throw this.#channel.fail('get', `malformed reply ${pmiMessageText(reply)}: rc=0 but no value`);
    return value;
  }

  abort(code: number, message: string): Promise<never> {
    return this.#life.abort(code, message, () => this.#channel.sendNow('abort', { exitcode: code }));
  }

  /** Waits for `finalize_ack` before closing: Hydra kills a job whose rank closes its connection without it. */
  finalize(): Promise<void> {
    return this.#life.finalize(async () => {
      try {
        await this.#channel.request('finalize', {}, ['finalize_ack'], this.#replyTimeoutMs);
      } finally {
        await this.#channel.close();
      }
    });
  }
}

export function checkTimeout(value: number | undefined, argument: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} ${value} is not an integer number of milliseconds > 0`, { argument });
  }
}

/** A mapping that does not parse is ignored here: PMI-1 servers need not have one, and MPI_LOCALNRANKS still counts. */
function localRanksOrUndefined(mapping: string | undefined, size: number, rank: number): number[] | undefined {
  if (mapping === undefined) return undefined;
  try {
    return localRanksFromMapping(mapping, size, rank);
  } catch {
    return undefined;
  }
}
