/**
 * `PmiRuntime`: a rank of a job launched by a PMI-1 server — MPICH's Hydra (`mpiexec.mpich`), or
 * `dapl run` (DESIGN §5). Keys and values are checked against the server's limits and the wire
 * rules before anything is sent, because Hydra mangles bad ones silently.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { encodeWaitReport, processWaits } from '../declared-waits.js';
import type { Clock, Runtime } from '../runtime.js';
import type { SingletonRuntimeOptions } from '../singleton-runtime.js';
import { WallClock } from '../wall-clock.js';
import { readPmiEnvironment, type PmiEnvironment } from './environment.js';
import { checkPmiIdentity, pmiHandshake, type PmiIdentity, type PmiSession } from './handshake.js';
import { kvsKeyProblem, kvsValueProblem, throwKvsProblem, type PmiLimits } from './limits.js';
import { PmiClientChannel } from './pmi-client-channel.js';
import { WAIT_QUERY, WAIT_REPORT } from './wait-query.js';
import { intField, pmiMessageText, textField } from './replies.js';

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
}

const DEFAULT_REPLY_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

enum PmiRuntimeState {
  Ready = 'ready',
  Finalizing = 'finalizing',
  Finalized = 'finalized',
  Aborted = 'aborted',
}

export class PmiRuntime implements Runtime {
  readonly rank: number;
  readonly size: number;
  readonly clock: Clock;
  readonly kvsName: string;
  readonly appnum: number;
  readonly limits: PmiLimits;
  readonly #channel: PmiClientChannel;
  readonly #exit: (code: number) => void;
  readonly #writeError: (text: string) => void;
  readonly #replyTimeoutMs: number | undefined;
  readonly #barrierTimeoutMs: number | undefined;
  #state = PmiRuntimeState.Ready;
  #finalizing: Promise<void> | undefined;

  private constructor(channel: PmiClientChannel, session: PmiSession, options: PmiRuntimeOptions) {
    this.#channel = channel;
    this.rank = session.rank;
    this.size = session.size;
    this.kvsName = session.kvsName;
    this.appnum = session.appnum;
    this.limits = session.limits;
    this.clock = options.clock ?? new WallClock();
    this.#exit = options.exit ?? ((code) => process.exit(code));
    this.#writeError = options.writeError ?? ((text) => void process.stderr.write(text));
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
    const settings = readPmiEnvironment(env);
    if (settings === undefined) {
      throw new DatError(DatStatus.INVALID_STATE, 'neither PMI_FD nor PMI_PORT is set: this process was not started by a PMI launcher', { argument: 'env' });
    }
    const stream = await openPmiStream(settings, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    const identity: PmiIdentity = settings.kind === 'fd' ? { rank: settings.rank, size: settings.size } : { pmiId: settings.pmiId };
    return PmiRuntime.overStream(stream, identity, options);
  }

  /** Speaks PMI over a stream that is already connected (tests; launchers that pass their own). */
  static async overStream(stream: Duplex, identity: PmiIdentity, options: PmiRuntimeOptions = {}): Promise<PmiRuntime> {
    checkPmiIdentity(identity);
    checkTimeout(options.replyTimeoutMs, 'replyTimeoutMs');
    checkTimeout(options.barrierTimeoutMs, 'barrierTimeoutMs');
    const channel = new PmiClientChannel(stream, { maxLineBytes: options.maxLineBytes, logger: options.logger });
    try {
      const session = await pmiHandshake(channel, identity, options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
      return new PmiRuntime(channel, session, options);
    } catch (error) {
      stream.destroy();
      throw error;
    }
  }

  async put(key: string, value: string): Promise<void> {
    this.#checkLive('put');
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
    this.#checkLive('barrier');
    const [reply] = await this.#channel.request('barrier_in', {}, ['barrier_out'], this.#barrierTimeoutMs);
    // Hydra's barrier_out carries no rc; our server adds rc=-1 when a rank left and the barrier can never complete.
    const rc = reply.fields.has('rc') ? intField(reply, 'rc') : 0;
    if (rc !== 0) {
      throw new DatError(DatStatus.CONNECTION_BROKEN, `PMI barrier_in failed: the server answered ${pmiMessageText(reply)}`);
    }
  }

  async get(key: string): Promise<string> {
    this.#checkLive('get');
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

  async abort(code: number, message: string): Promise<never> {
    if (!Number.isSafeInteger(code) || code < 0 || code > 255) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `exit code ${code} is not an integer in [0, 255]`, { argument: 'code' });
    }
    this.#state = PmiRuntimeState.Aborted;
    this.#writeError(`dapl: rank ${this.rank} aborting the job (exit code ${code}): ${message}\n`);
    await this.#channel.sendNow('abort', { exitcode: code });
    this.#exit(code);
    // Only reached when `exit` was replaced (tests): the job is over either way.
    throw new DatError(DatStatus.ABORT, `job aborted by rank ${this.rank} with code ${code}: ${message}`);
  }

  /** Waits for `finalize_ack` before closing: Hydra kills a job whose rank closes its connection without it. */
  finalize(): Promise<void> {
    if (this.#state === PmiRuntimeState.Aborted) return Promise.reject(new DatError(DatStatus.ABORT, 'runtime.finalize() after abort()'));
    this.#finalizing ??= this.#finalize();
    return this.#finalizing;
  }

  async #finalize(): Promise<void> {
    this.#state = PmiRuntimeState.Finalizing;
    try {
      await this.#channel.request('finalize', {}, ['finalize_ack'], this.#replyTimeoutMs);
    } finally {
      await this.#channel.close();
      this.#state = PmiRuntimeState.Finalized;
    }
  }

  #checkLive(call: string): void {
    if (this.#state === PmiRuntimeState.Aborted) throw new DatError(DatStatus.ABORT, `runtime.${call}() after abort()`);
    if (this.#state !== PmiRuntimeState.Ready) throw new DatError(DatStatus.INVALID_STATE, `runtime.${call}() after finalize()`);
  }
}

function checkTimeout(value: number | undefined, argument: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} ${value} is not an integer number of milliseconds > 0`, { argument });
  }
}

async function openPmiStream(settings: PmiEnvironment, connectTimeoutMs: number): Promise<net.Socket> {
  if (settings.kind === 'fd') {
    try {
      // A socket, not fs.readSync: once wrapped, the fd is non-blocking (notes/pmi-hydra.md).
      return new net.Socket({ fd: settings.fd, readable: true, writable: true });
    } catch (cause) {
      throw new DatError(DatStatus.CONNECTION_BROKEN, `PMI_FD=${settings.fd} is not a usable socket: ${(cause as Error).message}`, { argument: 'PMI_FD', cause });
    }
  }
  const { host, port } = settings;
  return new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `could not connect to PMI_PORT ${host}:${port} within ${connectTimeoutMs} ms`, { argument: 'PMI_PORT' }));
    }, connectTimeoutMs);
    socket.once('error', (cause) => {
      clearTimeout(timer);
      reject(new DatError(DatStatus.CONNECTION_BROKEN, `could not connect to PMI_PORT ${host}:${port}: ${cause.message}`, { argument: 'PMI_PORT', cause }));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}
