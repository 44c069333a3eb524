/**
 * `Pmi2Runtime`: a rank of a job whose launcher serves PMI-2 — Slurm's `srun --mpi=pmi2` above all,
 * or MPICH's Hydra (DESIGN §5, notes/multi-host.md). Besides what PMI-1 gives, it reads the job's
 * `PMI_process_mapping`, so the rank knows which ranks share its host (`localRanks`).
 */
import type { Duplex } from 'node:stream';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { Clock, Runtime } from '../runtime.js';
import { processWaits } from '../declared-waits.js';
import { kvsKeyProblem, kvsValueProblem, throwKvsProblem, type PmiLimits } from './limits.js';
import { Pmi2ClientChannel } from './pmi2-client-channel.js';
import { PMI2_MAX_KEY_BYTES, PMI2_MAX_VALUE_BYTES } from './pmi2-wire.js';
import { checkTimeout, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REPLY_TIMEOUT_MS, type PmiRuntimeOptions } from './pmi-runtime.js';
import { openPmiStream } from './pmi-stream.js';
import { PmiRankLifecycle, rankProcessHooks, requirePmiEnvironment } from './pmi-process-hooks.js';
import { localRanksFromMapping, PROCESS_MAPPING_KEY } from './process-mapping.js';
import { intField, pmiMessageText, textField } from './replies.js';
import type { PmiMessage } from './wire.js';

/** PMI-2's key and value limits in PMI-1's terms (a value's count includes C's terminating NUL). */
export const PMI2_LIMITS: PmiLimits = Object.freeze({ kvsnameMax: 256, keylenMax: PMI2_MAX_KEY_BYTES, vallenMax: PMI2_MAX_VALUE_BYTES });

/** What the rank may tell the server in `fullinit` (Slurm checks them against its own). */
export interface Pmi2Identity {
  readonly jobId?: string;
  readonly rank?: number;
}

/**
 * A rank of a job whose launcher serves PMI-2 (Slurm's `srun --mpi=pmi2`, Hydra); it also reads
 * `PMI_process_mapping`, so it knows which ranks share its host (`localRanks`).
 */
export class Pmi2Runtime implements Runtime {
  readonly rank: number;
  readonly size: number;
  readonly clock: Clock;
  readonly appnum: number;
  /** The job's id as the server names it (`<job>.<step>` under Slurm). */
  readonly jobId: string;
  readonly limits = PMI2_LIMITS;
  /** The ranks on this rank's host, ascending; undefined when the server gives no process mapping. */
  readonly localRanks: readonly number[] | undefined;
  /** `PMI_process_mapping` as the server gave it. */
  readonly processMapping: string | undefined;
  readonly #channel: Pmi2ClientChannel;
  readonly #life: PmiRankLifecycle;
  readonly #replyTimeoutMs: number;
  readonly #fenceTimeoutMs: number | undefined;
  /** Barriers entered (each gets a key of its own). */
  #barriers = 0;

  private constructor(channel: Pmi2ClientChannel, session: Pmi2Session, options: PmiRuntimeOptions) {
    this.#channel = channel;
    this.rank = session.rank;
    this.size = session.size;
    this.appnum = session.appnum;
    this.jobId = session.jobId;
    this.processMapping = session.processMapping;
    this.localRanks = session.localRanks;
    const hooks = rankProcessHooks(options);
    this.clock = hooks.clock;
    this.#life = new PmiRankLifecycle(() => this.rank, hooks);
    this.#replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    this.#fenceTimeoutMs = options.barrierTimeoutMs;
  }

  /** Joins the job described by `PMI_FD` (+ `PMI_RANK`, `PMI_SIZE`, `PMI_JOBID`) or `PMI_PORT`. */
  static async connect(env: NodeJS.ProcessEnv = process.env, options: PmiRuntimeOptions = {}): Promise<Pmi2Runtime> {
    const settings = requirePmiEnvironment(env);
    const stream = await openPmiStream(settings, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    const jobId = env.PMI_JOBID !== undefined && env.PMI_JOBID !== '' ? env.PMI_JOBID : undefined;
    return Pmi2Runtime.overStream(stream, { jobId, rank: settings.kind === 'fd' ? settings.rank : settings.pmiId }, options);
  }

  /** Speaks PMI-2 over a stream that is already connected (tests; launchers that pass their own). */
  static async overStream(stream: Duplex, identity: Pmi2Identity = {}, options: PmiRuntimeOptions = {}): Promise<Pmi2Runtime> {
    checkTimeout(options.replyTimeoutMs, 'replyTimeoutMs');
    checkTimeout(options.barrierTimeoutMs, 'barrierTimeoutMs');
    if (identity.rank !== undefined && !(Number.isSafeInteger(identity.rank) && identity.rank >= 0)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `identity.rank ${identity.rank} is not an integer >= 0`, { argument: 'identity.rank' });
    }
    const channel = new Pmi2ClientChannel(stream, options.logger);
    try {
      const session = await pmi2Handshake(channel, identity, options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
      return new Pmi2Runtime(channel, session, options);
    } catch (error) {
      stream.destroy();
      throw error;
    }
  }

  /**
   * Listed in `dapl run`'s wait report where a launcher asks for it (see `DeclaredWaits`), and held:
   * the process lives while a declared wait is pending, whatever its sockets do.
   */
  declareWait<T>(what: string, promise: Promise<T>): Promise<T> {
    return processWaits.declare(what, promise);
  }

  async put(key: string, value: string): Promise<void> {
    this.#life.checkLive('put');
    throwKvsProblem(kvsKeyProblem(key, this.limits));
    throwKvsProblem(kvsValueProblem(value, this.limits));
    checkNoSemicolon('key', key);
    checkNoSemicolon('value', value);
    const reply = await this.#channel.request('kvs-put', { key, value }, this.#replyTimeoutMs);
    this.#checkRc('kvs-put', reply, `put of key "${key}"`);
  }

  async fence(): Promise<void> {
    this.#life.checkLive('fence');
    const reply = await this.#channel.request('kvs-fence', {}, this.#fenceTimeoutMs);
    this.#checkRc('kvs-fence', reply, 'kvs-fence', DatStatus.CONNECTION_BROKEN);
  }

  /**
   * PMI-2 has no barrier. Slurm's kvs-fence is one, but Hydra answers a fence at once and holds
   * back instead a kvs-get of a key nobody has put until every process has reached that fence. So:
   * a fence, then a get of a key never put (one per barrier), answered "not found" only once every
   * rank has fenced — a barrier under either server. (Hydra's closing job once let rank 0 leave its
   * `finish()` while the others still connected to it.)
   */
  async barrier(): Promise<void> {
    await this.fence();
    const key = `dapl-barrier-${++this.#barriers}`;
    const reply = await this.#channel.request('kvs-get', { jobid: this.jobId, srcid: -1, key }, this.#fenceTimeoutMs);
    // Any well-formed answer ends the barrier: the key is not there, which a server may say with a non-zero rc.
    if (intField(reply, 'rc') === undefined) throw this.#channel.fail('kvs-get', `malformed reply ${pmiMessageText(reply)}: no integer rc`);
  }

  async get(key: string): Promise<string> {
    this.#life.checkLive('get');
    throwKvsProblem(kvsKeyProblem(key, this.limits));
    checkNoSemicolon('key', key);
    const reply = await this.#channel.request('kvs-get', { jobid: this.jobId, srcid: -1, key }, this.#replyTimeoutMs);
    this.#checkRc('kvs-get', reply, `get of key "${key}"`);
    const value = textField(reply, 'value');
    if (textField(reply, 'found') !== 'TRUE' || value === undefined) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `no value was put for key "${key}" in job ${this.jobId} (not found: the server answered ${pmiMessageText(reply)})`, { argument: 'key' });
    }
    return value;
  }

  abort(code: number, message: string): Promise<never> {
    // The message travels as a PMI-2 value: no ';' or control characters, at most PMI2_MAX_VALLEN.
    const msg = String(message).replace(/[;\p{Cc}]/gu, ' ').slice(0, PMI2_MAX_VALUE_BYTES / 4);
    return this.#life.abort(code, message, () => this.#channel.sendNow('abort', { isworld: true, msg }));
  }

  finalize(): Promise<void> {
    return this.#life.finalize(async () => {
      try {
        const reply = await this.#channel.request('finalize', {}, this.#replyTimeoutMs);
        this.#checkRc('finalize', reply, 'finalize');
      } finally {
        await this.#channel.close();
      }
    });
  }

  #checkRc(command: string, reply: PmiMessage, what: string, status = DatStatus.INTERNAL_ERROR): void {
    const rc = intField(reply, 'rc');
    if (rc === undefined) throw this.#channel.fail(command, `malformed reply ${pmiMessageText(reply)}: no integer rc`);
    if (rc !== 0) throw new DatError(status, `PMI-2 ${what} failed: the server answered ${pmiMessageText(reply)}`);
  }
}

/** `;` ends a PMI-2 field (PMI-1 allows it; PMI-2 does not). */
function checkNoSemicolon(argument: 'key' | 'value', text: string): void {
  if (text.includes(';')) throw new DatError(DatStatus.INVALID_PARAMETER, `KVS ${argument} ${JSON.stringify(text.slice(0, 80))} is not allowed: PMI-2 ${argument}s cannot contain ";"`, { argument });
}

interface Pmi2Session {
  readonly rank: number;
  readonly size: number;
  readonly appnum: number;
  readonly jobId: string;
  readonly processMapping: string | undefined;
  readonly localRanks: readonly number[] | undefined;
}

/** `init` (unframed), `fullinit`, `job-getid`, `info-getjobattr PMI_process_mapping`. */
async function pmi2Handshake(channel: Pmi2ClientChannel, identity: Pmi2Identity, timeoutMs: number): Promise<Pmi2Session> {
  const init = await channel.init(timeoutMs);
  if (intField(init, 'rc') !== 0 || textField(init, 'pmi_version') !== '2') {
    throw channel.fail('init', `the server does not speak PMI-2: it answered ${pmiMessageText(init)}`, DatStatus.MODEL_NOT_SUPPORTED);
  }
  const fields: Record<string, string | number | boolean> = {};
  if (identity.jobId !== undefined) fields.pmijobid = identity.jobId;
  if (identity.rank !== undefined) fields.pmirank = identity.rank;
  fields.threaded = false;
  const full = await channel.request('fullinit', fields, timeoutMs);
  if (intField(full, 'rc') !== 0) throw channel.fail('fullinit', `the server refused fullinit: ${pmiMessageText(full)}`);
  const size = intField(full, 'size');
  const rank = intField(full, 'rank');
  if (size === undefined || size < 1 || rank === undefined || rank < 0 || rank >= size) {
    throw channel.fail('fullinit', `malformed reply ${pmiMessageText(full)}: expected rank=R and size=N with 0 <= R < N`);
  }
  if (identity.rank !== undefined && identity.rank !== rank) {
    throw channel.fail('fullinit', `the server says this is rank ${rank}, the environment said ${identity.rank}`);
  }
  const appnum = intField(full, 'appnum') ?? 0;

  const idReply = await channel.request('job-getid', {}, timeoutMs);
  const jobId = textField(idReply, 'jobid');
  if (intField(idReply, 'rc') !== 0 || jobId === undefined || jobId === '') throw channel.fail('job-getid', `malformed reply ${pmiMessageText(idReply)}: no jobid`);

  const mapReply = await channel.request('info-getjobattr', { key: PROCESS_MAPPING_KEY }, timeoutMs);
  if (intField(mapReply, 'rc') !== 0) throw channel.fail('info-getjobattr', `the server refused info-getjobattr: ${pmiMessageText(mapReply)}`);
  const processMapping = textField(mapReply, 'found') === 'TRUE' ? textField(mapReply, 'value') : undefined;
  let localRanks: number[] | undefined;
  if (processMapping !== undefined) {
    try {
      localRanks = localRanksFromMapping(processMapping, size, rank);
    } catch (error) {
      throw channel.fail('info-getjobattr', (error as Error).message);
    }
  }
  return { rank, size, appnum, jobId, processMapping, localRanks };
}
