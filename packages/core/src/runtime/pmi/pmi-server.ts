/**
 * `PmiServer`: the PMI-1 server of `dapl run` — the same protocol Hydra serves (notes/pmi-hydra.md),
 * so one client, `PmiRuntime`, works under both. One job, one KVS. Unlike Hydra, keys and values over
 * the limits are refused (rc=-1) rather than cut, and a barrier that can never complete (a rank
 * finalized, aborted, broke the protocol or disconnected) is answered `barrier_out rc=-1` at once.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { HYDRA_PMI_LIMITS, kvsKeyProblem, kvsValueProblem, pmiLimitsProblem, pmiLineBytesFor, type KvsProblem, type PmiLimits } from './limits.js';
import { decodeWaitReport, type WaitReport } from '../declared-waits.js';
import { WAIT_QUERY, WAIT_REPORT } from './wait-query.js';
import { intField, pmiMessageText, textField } from './replies.js';
import { PmiServerConnection, type PmiServerConnectionHandler } from './server-connection.js';
import { formatPmiLine, PMI_VALUE_FORBIDDEN, type PmiMessage } from './wire.js';
import { newPmiNonce, verifyPmiAuthResponse } from './pmi-port-auth.js';
import { parseProcessMapping, PROCESS_MAPPING_KEY } from './process-mapping.js';

/** Options of `PmiServer`. */
export interface PmiServerOptions {
  /** Ranks in the job. */
  readonly size: number;
  /** Default: generated, `kvs_<pid>_<random>`. */
  readonly kvsName?: string;
  /** Default 0. */
  readonly appnum?: number;
  /** Default 256 / 64 / 1024, as Hydra. */
  readonly limits?: { readonly kvsnameMax?: number; readonly keylenMax?: number; readonly vallenMax?: number };
  /** Called when a rank aborts the job (PMI `abort`), with its exit code. */
  readonly onAbort?: (rank: number, exitCode: number) => void;
  /** Called when a rank has finalized. */
  readonly onFinalize?: (rank: number) => void;
  /** A rank (undefined: a PMI_PORT client not yet identified) broke the protocol; its stream is closed. */
  readonly onProtocolError?: (rank: number | undefined, message: string) => void;
  /** A rank's stream closed before it finalized or aborted. Without this handler, `onProtocolError` is told. */
  readonly onDisconnect?: (rank: number) => void;
  /**
   * The job key: `PMI_PORT` clients must answer an HMAC challenge with it before anything else
   * (pmi-port-auth.ts). A client that does not is refused — closed and counted — without any callback:
   * a foreign process is not an event of the job.
   */
  readonly portAuthKey?: Uint8Array;
  /** How long a `PMI_PORT` client may take to authenticate and identify. Default 10 s. */
  readonly identifyTimeoutMs?: number;
  /** A `PMI_PORT` client identified as `rank`; `socket` is its connection (the launcher watches it). */
  readonly onPortClient?: (rank: number, socket: net.Socket) => void;
  /** `PMI_process_mapping`, put in the KVS from the start as Hydra does (which ranks share a host). */
  readonly processMapping?: string;
  /** A rank's answer to `requestWaitReports()`: its declared waits (undefined: a malformed answer). */
  readonly onWaits?: (rank: number, waits: WaitReport[] | undefined) => void;
  /**
   * Most keys the KVS holds (default `DEFAULT_MAX_KVS_KEYS_PER_RANK` per rank, at least 4096): a put
   * of a new key beyond it is refused (rc=-1), so a rank cannot grow the launcher without bound.
   */
  readonly maxKvsKeys?: number;
  readonly logger?: Logger;
}

/** Keys a rank may add to the KVS by default (a rank of an MPI job puts a handful). */
export const DEFAULT_MAX_KVS_KEYS_PER_RANK = 256;

const DEFAULT_IDENTIFY_TIMEOUT_MS = 10_000;

enum RankState {
  Active = 'active',
  Finalized = 'finalized',
  Aborted = 'aborted',
  /** Broke the protocol; its stream was closed. */
  Failed = 'failed',
  Disconnected = 'disconnected',
}

interface RankSlot {
  readonly rank: number;
  readonly connection: PmiServerConnection;
  state: RankState;
}

/**
 * The PMI-1 server of `dapl run`: Hydra's protocol, one job, one KVS. Keys and values over the limits
 * are refused rather than cut, and a barrier that can never complete is answered `rc=-1` at once.
 */
export class PmiServer {
  readonly size: number;
  readonly kvsName: string;
  readonly appnum: number;
  readonly limits: PmiLimits;
  readonly #options: PmiServerOptions;
  readonly #logger: Logger | undefined;
  readonly #maxLineBytes: number;
  readonly #slots: (RankSlot | undefined)[];
  readonly #kvs = new Map<string, string>();
  /** Ranks whose barrier_in waits for the others. */
  readonly #barrier = new Set<number>();
  readonly #unidentified = new Set<PmiServerConnection>();
  #refused = 0;
  readonly #maxKvsKeys: number;
  #listener: net.Server | undefined;
  #closed = false;

  constructor(options: PmiServerOptions) {
    if (!Number.isSafeInteger(options.size) || options.size < 1 || options.size > 1_000_000) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `size ${options.size} is not an integer in [1, 1000000]`, { argument: 'size' });
    }
    const appnum = options.appnum ?? 0;
    if (!Number.isSafeInteger(appnum) || appnum < 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `appnum ${appnum} is not an integer >= 0`, { argument: 'appnum' });
    }
    const limits: PmiLimits = { ...HYDRA_PMI_LIMITS, ...definedOnly(options.limits ?? {}) };
    const limitsProblem = pmiLimitsProblem(limits, 'limits');
    if (limitsProblem !== undefined) throw new DatError(DatStatus.INVALID_PARAMETER, limitsProblem.message, { argument: limitsProblem.argument });
    const kvsName = options.kvsName ?? `kvs_${process.pid}_${randomBytes(4).toString('hex')}`;
    if (kvsName === '' || PMI_VALUE_FORBIDDEN.test(kvsName) || Buffer.byteLength(kvsName) > limits.kvsnameMax - 1) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `kvsName ${JSON.stringify(kvsName)} must be 1 to ${limits.kvsnameMax - 1} bytes without whitespace or control characters`, { argument: 'kvsName' });
    }
    this.size = options.size;
    this.kvsName = kvsName;
    this.appnum = appnum;
    this.limits = Object.freeze(limits);
    this.#options = options;
    this.#logger = options.logger;
    this.#maxLineBytes = pmiLineBytesFor(limits);
    this.#slots = new Array<RankSlot | undefined>(options.size).fill(undefined);
    if (options.processMapping !== undefined) {
      parseProcessMapping(options.processMapping);
      this.#kvs.set(PROCESS_MAPPING_KEY, options.processMapping);
    }
    const maxKvsKeys = options.maxKvsKeys ?? Math.max(4096, options.size * DEFAULT_MAX_KVS_KEYS_PER_RANK);
    if (!Number.isSafeInteger(maxKvsKeys) || maxKvsKeys < 1) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `maxKvsKeys ${maxKvsKeys} is not an integer >= 1`, { argument: 'maxKvsKeys' });
    }
    this.#maxKvsKeys = maxKvsKeys;
  }

  /**
   * Ask every rank still in the job what it waits for (a `dapl run` extension of the protocol); the
   * answers come to `onWaits`. Returns the ranks asked.
   */
  requestWaitReports(): number[] {
    const asked: number[] = [];
    for (const slot of this.#slots) {
      if (slot === undefined || slot.state !== RankState.Active || slot.connection.closed) continue;
      slot.connection.send(WAIT_QUERY);
      asked.push(slot.rank);
    }
    return asked;
  }

  /** Serve one rank over a connected duplex stream (the parent's end of the PMI_FD socket pair). */
  attach(stream: Duplex, rank: number): void {
    if (this.#closed) throw new DatError(DatStatus.INVALID_STATE, 'PmiServer.attach() after close()');
    this.#checkFreeRank(rank);
    const connection = new PmiServerConnection(stream, this.#maxLineBytes, this.#rankHandler(rank));
    this.#slots[rank] = { rank, connection, state: RankState.Active };
    this.#logger?.debug({ rank }, 'PMI rank attached');
  }

  /** Also accept PMI_PORT clients (they identify with `initack pmiid=<rank>`); resolves with the port. */
  async listen(host = '127.0.0.1'): Promise<number> {
    if (this.#closed) throw new DatError(DatStatus.INVALID_STATE, 'PmiServer.listen() after close()');
    if (this.#listener !== undefined) throw new DatError(DatStatus.INVALID_STATE, 'PmiServer.listen() was already called');
    const listener = net.createServer((socket) => this.#acceptPortClient(socket));
    this.#listener = listener;
    await new Promise<void>((resolve, reject) => {
      listener.once('error', (cause) => reject(new DatError(DatStatus.INSUFFICIENT_RESOURCES, `PMI server cannot listen on ${host}: ${cause.message}`, { argument: 'host', cause })));
      listener.listen(0, host, () => resolve());
    });
    return (listener.address() as net.AddressInfo).port;
  }

  /** `PMI_PORT` connections refused because they did not authenticate or identify. */
  get refusedConnections(): number {
    return this.#refused;
  }

  /** Stops listening and closes every client stream; no callback is called afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const connection of this.#unidentified) connection.destroy();
    this.#unidentified.clear();
    for (const slot of this.#slots) slot?.connection.destroy();
    this.#barrier.clear();
    const listener = this.#listener;
    if (listener !== undefined) await new Promise<void>((resolve) => listener.close(() => resolve()));
  }

  #checkFreeRank(rank: number): void {
    if (!Number.isSafeInteger(rank) || rank < 0 || rank >= this.size) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `rank ${rank} is not an integer in [0, ${this.size - 1}]`, { argument: 'rank' });
    }
    if (this.#slots[rank] !== undefined) throw new DatError(DatStatus.INVALID_STATE, `rank ${rank} is already attached`, { argument: 'rank' });
  }

  /** Handlers of a rank's connection; they run on stream events, after the rank's slot is filled. */
  #rankHandler(rank: number): PmiServerConnectionHandler {
    const slot = (): RankSlot => this.#slots[rank] as RankSlot;
    return {
      onMessage: (message) => this.#onRankMessage(slot(), message),
      onWireError: (message) => this.#protocolError(slot(), message),
      onClose: () => this.#onRankClosed(slot()),
    };
  }

  #acceptPortClient(socket: net.Socket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const authKey = this.#options.portAuthKey;
    const nonce = authKey === undefined ? undefined : newPmiNonce();
    let authenticatedAs: number | undefined;
    const timer = setTimeout(() => this.#refuse(connection, 'did not authenticate and identify in time'), this.#options.identifyTimeoutMs ?? DEFAULT_IDENTIFY_TIMEOUT_MS);
    timer.unref();
    const connection: PmiServerConnection = new PmiServerConnection(socket, this.#maxLineBytes, {
      onMessage: (message) => {
        if (authKey !== undefined && nonce !== undefined && authenticatedAs === undefined) {
          authenticatedAs = verifyPmiAuthResponse(message, authKey, nonce);
          if (authenticatedAs === undefined) this.#refuse(connection, `did not answer the job key's challenge (sent ${pmiMessageText(message)})`);
          return;
        }
        if (authKey !== undefined && intField(message, 'pmiid') !== authenticatedAs) {
          this.#refuse(connection, `authenticated as rank ${authenticatedAs} but sent ${pmiMessageText(message)}`);
          return;
        }
        if (this.#identify(connection, message, socket)) clearTimeout(timer);
      },
      onWireError: (message) => (authKey !== undefined && authenticatedAs === undefined ? this.#refuse(connection, message) : this.#rejectUnidentified(connection, message)),
      onClose: () => {
        clearTimeout(timer);
        this.#unidentified.delete(connection);
      },
    });
    this.#unidentified.add(connection);
    if (nonce !== undefined) connection.send('auth_challenge', { nonce });
  }

  #identify(connection: PmiServerConnection, message: PmiMessage, socket: net.Socket): boolean {
    const rank = intField(message, 'pmiid');
    if (message.cmd !== 'initack' || rank === undefined) {
      this.#rejectUnidentified(connection, `a PMI_PORT client must first send cmd=initack pmiid=<rank>, not ${pmiMessageText(message)}`);
      return false;
    }
    if (rank < 0 || rank >= this.size || this.#slots[rank] !== undefined) {
      const why = rank < 0 || rank >= this.size ? `not in [0, ${this.size - 1}]` : 'already connected';
      this.#rejectUnidentified(connection, `initack pmiid=${rank}: rank ${why}`);
      return false;
    }
    this.#unidentified.delete(connection);
    this.#slots[rank] = { rank, connection, state: RankState.Active };
    connection.setHandler(this.#rankHandler(rank));
    connection.sendLines(formatPmiLine('initack') + formatPmiLine('set', { size: this.size }) + formatPmiLine('set', { rank }) + formatPmiLine('set', { debug: 0 }));
    this.#logger?.debug({ rank }, 'PMI_PORT client identified');
    this.#notify('onPortClient', () => this.#options.onPortClient?.(rank, socket));
    return true;
  }

  #rejectUnidentified(connection: PmiServerConnection, message: string): void {
    if (!this.#unidentified.delete(connection)) return;
    connection.destroy();
    this.#notify('onProtocolError', () => this.#options.onProtocolError?.(undefined, message));
  }

  /** Closes a connection that did not prove it belongs to the job; the job hears nothing of it. */
  #refuse(connection: PmiServerConnection, why: string): void {
    if (!this.#unidentified.delete(connection)) return;
    connection.destroy();
    this.#refused++;
    this.#logger?.warn({ reason: why }, 'PMI_PORT connection refused');
  }

  #onRankMessage(slot: RankSlot, message: PmiMessage): void {
    // The job is ending; what an aborting rank still sends does not matter.
    if (slot.state === RankState.Aborted) return;
    if (slot.state !== RankState.Active) {
      this.#protocolError(slot, `rank ${slot.rank} sent ${pmiMessageText(message)} after finalize`);
      return;
    }
    const reply = slot.connection;
    switch (message.cmd) {
      case 'init': {
        const rc = textField(message, 'pmi_version') === '1' ? 0 : -1;
        reply.send('response_to_init', { pmi_version: 1, pmi_subversion: 1, rc });
        return;
      }
      case 'get_maxes':
        reply.send('maxes', { kvsname_max: this.limits.kvsnameMax, keylen_max: this.limits.keylenMax, vallen_max: this.limits.vallenMax });
        return;
      case 'get_appnum':
        reply.send('appnum', { appnum: this.appnum });
        return;
      case 'get_my_kvsname':
        reply.send('my_kvsname', { kvsname: this.kvsName });
        return;
      case 'get_universe_size':
        reply.send('universe_size', { size: this.size });
        return;
      case 'put':
        this.#put(slot, message);
        return;
      case 'get':
        this.#get(slot, message);
        return;
      case 'barrier_in':
        this.#enterBarrier(slot);
        return;
      case 'abort':
        this.#abort(slot, message);
        return;
      case WAIT_REPORT:
        this.#notify('onWaits', () => this.#options.onWaits?.(slot.rank, decodeWaitReport(textField(message, 'waits') ?? '')));
        return;
      case 'finalize':
        reply.send('finalize_ack');
        slot.state = RankState.Finalized;
        this.#notify('onFinalize', () => this.#options.onFinalize?.(slot.rank));
        this.#settleBarrier();
        return;
      default:
        this.#protocolError(slot, `rank ${slot.rank} sent an unknown PMI command ${pmiMessageText(message)}`);
    }
  }

  #put(slot: RankSlot, message: PmiMessage): void {
    const key = textField(message, 'key');
    const value = textField(message, 'value');
    const kvsname = textField(message, 'kvsname');
    if (key === undefined || value === undefined || kvsname === undefined) {
      this.#protocolError(slot, `rank ${slot.rank} sent ${pmiMessageText(message)}: put needs kvsname, key and value`);
      return;
    }
    const refusal = kvsname !== this.kvsName ? `kvsname_${kvsname}_not_found` : problemMsg(kvsKeyProblem(key, this.limits) ?? kvsValueProblem(value, this.limits));
    const full = refusal === undefined && this.#kvs.size >= this.#maxKvsKeys && !this.#kvs.has(key);
    if (refusal !== undefined || full) {
      slot.connection.send('put_result', { rc: -1, msg: refusal ?? `the_KVS_is_full:_it_holds_its_limit_of_${this.#maxKvsKeys}_keys` });
      return;
    }
    this.#kvs.set(key, value);
    slot.connection.send('put_result', { rc: 0, msg: 'success' });
  }

  #get(slot: RankSlot, message: PmiMessage): void {
    const key = textField(message, 'key');
    const kvsname = textField(message, 'kvsname');
    if (key === undefined || kvsname === undefined) {
      this.#protocolError(slot, `rank ${slot.rank} sent ${pmiMessageText(message)}: get needs kvsname and key`);
      return;
    }
    const value = kvsname === this.kvsName ? this.#kvs.get(key) : undefined;
    if (value === undefined) {
      const msg = kvsname === this.kvsName ? `key_${key}_not_found` : `kvsname_${kvsname}_not_found`;
      slot.connection.send('get_result', { rc: -1, msg, value: 'unknown' });
      return;
    }
    slot.connection.send('get_result', { rc: 0, msg: 'success', value });
  }

  #abort(slot: RankSlot, message: PmiMessage): void {
    const exitCode = intField(message, 'exitcode');
    if (exitCode === undefined) {
      this.#protocolError(slot, `rank ${slot.rank} sent ${pmiMessageText(message)}: abort needs an integer exitcode`);
      return;
    }
    // Left in the barrier if it waits there: settling fails that barrier for every waiter, this rank too.
    slot.state = RankState.Aborted;
    this.#logger?.debug({ rank: slot.rank, exitCode }, 'PMI rank aborted the job');
    this.#notify('onAbort', () => this.#options.onAbort?.(slot.rank, exitCode));
    this.#settleBarrier();
  }

  #enterBarrier(slot: RankSlot): void {
    this.#barrier.add(slot.rank);
    slot.connection.hold();
    this.#settleBarrier();
  }

  /** Completes the barrier when every rank is in, or fails it when some rank can never come. */
  #settleBarrier(): void {
    if (this.#barrier.size === 0 || this.#closed) return;
    let fields: Record<string, string | number> = {};
    if (this.#barrier.size < this.size) {
      const gone = this.#slots.find((slot) => slot !== undefined && slot.state !== RankState.Active);
      if (gone === undefined) return;
      fields = { rc: -1, msg: `rank_${gone.rank}_${gone.state}_so_the_barrier_cannot_complete` };
    }
    const waiting = [...this.#barrier];
    this.#barrier.clear();
    for (const rank of waiting) {
      const slot = this.#slots[rank] as RankSlot;
      slot.connection.send('barrier_out', fields);
      slot.connection.release();
    }
  }

  #protocolError(slot: RankSlot, message: string): void {
    if (slot.state === RankState.Failed || slot.state === RankState.Disconnected) return;
    // An aborting rank may die mid-line: the job is ending, and onAbort already said why.
    if (slot.state === RankState.Aborted) {
      slot.connection.destroy();
      return;
    }
    slot.state = RankState.Failed;
    this.#barrier.delete(slot.rank);
    slot.connection.destroy();
    this.#logger?.warn({ rank: slot.rank, reason: message }, 'PMI protocol error; closing the rank');
    this.#notify('onProtocolError', () => this.#options.onProtocolError?.(slot.rank, message));
    this.#settleBarrier();
  }

  #onRankClosed(slot: RankSlot): void {
    if (this.#closed || slot.state !== RankState.Active) return;
    slot.state = RankState.Disconnected;
    this.#barrier.delete(slot.rank);
    this.#logger?.debug({ rank: slot.rank }, 'PMI rank disconnected before finalize');
    const { onDisconnect, onProtocolError } = this.#options;
    if (onDisconnect !== undefined) this.#notify('onDisconnect', () => onDisconnect(slot.rank));
    else this.#notify('onProtocolError', () => onProtocolError?.(slot.rank, `rank ${slot.rank} closed its PMI connection before finalize`));
    this.#settleBarrier();
  }

  /** A throwing callback must not break the server (it runs on a stream event). */
  #notify(name: string, callback: () => void): void {
    if (this.#closed) return;
    try {
      callback();
    } catch (error) {
      this.#logger?.error({ err: error }, `PmiServer ${name} callback threw`);
    }
  }
}

/** A refusal as a PMI `msg` value (no spaces allowed). */
function problemMsg(problem: KvsProblem | undefined): string | undefined {
  return problem === undefined ? undefined : problem.message.replace(/\s+/g, '_');
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
