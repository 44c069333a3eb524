import { pino } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import type { PublicServicePoint } from '../../dat/psp.js';
import type { ProtectionZone } from '../../dat/pz.js';
import type { SharedReceiveQueue } from '../../dat/srq.js';
import type { Runtime } from '../runtime.js';
import { ConnectionService } from './connection-service.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_KEY_PREFIX, type Connections, type ConnectionsOptions } from './types.js';
import { encodeListenAddress } from './wiring.js';

/**
 * Collective: listen on a PSP of `ia`, publish `<prefix>-<rank>` = `<address>#<connQual>` in the
 * runtime's KVS, and `fence()`. Endpoints are then made on first use of each peer.
 */
export async function startConnections(ia: InterfaceAdapter, runtime: Runtime, options: ConnectionsOptions = {}): Promise<Connections> {
  checkOptions(options);
  const keyPrefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const logger = (options.logger ?? pino({ level: 'silent' })).child({ component: 'core:Connections', rank: runtime.rank });

  const pz: ProtectionZone = options.pz ?? ia.createPz();
  const evds = options.evds ?? { recv: ia.createEvd(), request: ia.createEvd() };
  let connectEvd: EventDispatcher | undefined;
  let psp: PublicServicePoint | undefined;
  try {
    connectEvd = ia.createEvd();
    psp = await ia.createPspAny(connectEvd);
  } catch (error) {
    // Undo what was made here; the caller's objects stay theirs.
    psp?.free();
    connectEvd?.free();
    if (options.evds === undefined) {
      evds.recv.free();
      evds.request.free();
    }
    if (options.pz === undefined) pz.free();
    throw error;
  }
  let attributes = options.attributes;
  let srq: SharedReceiveQueue | undefined;
  try {
    srq = options.sharedReceiveQueue?.(ia, pz);
    if (srq !== undefined) attributes = { ...attributes, srq };
  } catch (error) {
    psp.free();
    connectEvd.free();
    throw error;
  }
  const service = new ConnectionService({
    ia,
    runtime,
    pz,
    evds,
    connectEvd,
    psp,
    attributes,
    srq,
    prepare: options.prepare,
    keyPrefix,
    connectTimeoutMs,
    logger,
    owned: { pz: options.pz === undefined, evds: options.evds === undefined },
  });
  try {
    await runtime.put(`${keyPrefix}-${runtime.rank}`, encodeListenAddress({ address: ia.address, connQual: psp.connQual }));
    await runtime.fence();
  } catch (error) {
    await service.close();
    throw error;
  }
  logger.debug({ address: ia.address, connQual: psp.connQual }, 'listening for higher ranks');
  return service;
}

function checkOptions(options: ConnectionsOptions): void {
  if (typeof options !== 'object' || options === null) throw invalid('options', `must be an object, got ${String(options)}`);
  const { keyPrefix, connectTimeoutMs, prepare, evds } = options;
  if (keyPrefix !== undefined && (typeof keyPrefix !== 'string' || !/^[^\s=]+$/.test(keyPrefix))) {
    throw invalid('options.keyPrefix', `must be a non-empty string without whitespace or "=", got ${JSON.stringify(keyPrefix)}`);
  }
  if (connectTimeoutMs !== undefined && (typeof connectTimeoutMs !== 'number' || !Number.isSafeInteger(connectTimeoutMs) || connectTimeoutMs < 1 || connectTimeoutMs > 2 ** 31 - 1)) {
    throw invalid('options.connectTimeoutMs', `must be an integer in [1, ${2 ** 31 - 1}], got ${String(connectTimeoutMs)}`);
  }
  if (prepare !== undefined && typeof prepare !== 'function') throw invalid('options.prepare', `must be a function, got ${typeof prepare}`);
  if (evds !== undefined && (typeof evds !== 'object' || evds === null || evds.recv === undefined || evds.request === undefined)) {
    throw invalid('options.evds', 'must give both recv and request EVDs');
  }
}

function invalid(argument: string, message: string): DatError {
  return new DatError(DatStatus.INVALID_PARAMETER, `${argument} ${message}`, { argument });
}
