import { expect } from 'vitest';
import { EpState, type Endpoint, type EndpointAttributes } from '../../dat/endpoint.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import { MemAccess, type Lmr, type LmrTriplet, type RmrTriplet } from '../../dat/memory.js';
import type { IaOptions } from '../../dat/provider.js';
import type { PublicServicePoint } from '../../dat/psp.js';
import type { ProtectionZone } from '../../dat/pz.js';
import { DtoStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { bytesToArray, expectSameBytes, randomBytes } from './helpers.js';

export const CLIENT_PRIVATE_DATA = new Uint8Array([1, 2, 3, 4, 5]);
export const SERVER_PRIVATE_DATA = new Uint8Array([200, 201]);

/** One side of a connection: its IA, zone, endpoint, and one EVD per role (so each can be checked alone). */
export interface Side {
  readonly ia: InterfaceAdapter;
  readonly pz: ProtectionZone;
  readonly recv: EventDispatcher;
  readonly request: EventDispatcher;
  readonly connect: EventDispatcher;
  readonly ep: Endpoint;
}

export interface Listener {
  readonly psp: PublicServicePoint;
  /** Where connection requests arrive. */
  readonly evd: EventDispatcher;
}

export interface Pair {
  readonly client: Side;
  readonly server: Side;
  readonly listener: Listener;
}

export interface PairOptions {
  /** Use these IAs ([client, server]) instead of opening a pair. */
  readonly ias?: readonly [InterfaceAdapter, InterfaceAdapter];
  readonly iaOptions?: IaOptions;
  readonly clientAttributes?: Partial<EndpointAttributes>;
  readonly serverAttributes?: Partial<EndpointAttributes>;
  /** Queue depth of every EVD; default: the provider's. */
  readonly evdDepth?: number;
  /** Runs after both endpoints exist and before connect (to pre-post receives). */
  readonly beforeConnect?: (client: Side, server: Side) => void;
}

export function createSide(ia: InterfaceAdapter, attributes?: Partial<EndpointAttributes>, evdDepth?: number, pz = ia.createPz()): Side {
  const options = evdDepth === undefined ? {} : { queueDepth: evdDepth };
  const recv = ia.createEvd(options);
  const request = ia.createEvd(options);
  const connect = ia.createEvd(options);
  const ep = ia.createEp(pz, { recv, request, connect }, attributes);
  return { ia, pz, recv, request, connect, ep };
}

export async function listen(ia: InterfaceAdapter): Promise<Listener> {
  const evd = ia.createEvd();
  const psp = await ia.createPspAny(evd);
  return { psp, evd };
}

/**
 * Build PZ / EVDs / EPs on two IAs, listen with createPspAny, connect with private data,
 * accept with private data, and check what both sides saw on the way.
 */
export async function connectPair(h: Harness, options: PairOptions = {}): Promise<Pair> {
  const [clientIa, serverIa] = options.ias ?? (await h.openPair(options.iaOptions));
  const client = createSide(clientIa, options.clientAttributes, options.evdDepth);
  const server = createSide(serverIa, options.serverAttributes, options.evdDepth);
  const listener = await listen(serverIa);
  options.beforeConnect?.(client, server);
  client.ep.connect(serverIa.address, listener.psp.connQual, { privateData: CLIENT_PRIVATE_DATA, timeoutMs: h.waitMs });
  expect(client.ep.state).toBe(EpState.ACTIVE_CONNECTION_PENDING);
  const request = await h.nextEvent(listener.evd, 'connection-request');
  expect(request.psp).toBe(listener.psp);
  expect(bytesToArray(request.request.privateData)).toEqual(bytesToArray(CLIENT_PRIVATE_DATA));
  expect(typeof request.request.remoteAddress).toBe('string');
  request.request.accept(server.ep, SERVER_PRIVATE_DATA);
  const serverUp = await h.nextEvent(server.connect, 'connection-established');
  expect(serverUp.ep).toBe(server.ep);
  const clientUp = await h.nextEvent(client.connect, 'connection-established');
  expect(clientUp.ep).toBe(client.ep);
  expect(bytesToArray(clientUp.privateData)).toEqual(bytesToArray(SERVER_PRIVATE_DATA));
  expect(client.ep.state).toBe(EpState.CONNECTED);
  expect(server.ep.state).toBe(EpState.CONNECTED);
  return { client, server, listener };
}

/** Memory registered in `pz`, filled with random bytes unless `fill` says otherwise. */
export interface Region {
  readonly bytes: Uint8Array;
  readonly lmr: Lmr;
}

export function region(pz: ProtectionZone, length: number, access: number = MemAccess.ALL, fill: 'random' | number = 'random'): Region {
  const bytes = fill === 'random' ? randomBytes(length) : new Uint8Array(length).fill(fill);
  return { bytes, lmr: pz.registerLmr(bytes, access) };
}

export function seg(lmr: Lmr, offset: number, length: number): LmrTriplet {
  return { lmr, offset, length };
}

/** `length` bytes at `offset` through `window`'s RMR (the remote side of an RDMA request). */
export function at(window: RmrTriplet, offset: number, length: number): RmrTriplet {
  return { rmrContext: window.rmrContext, targetOffset: offset, length };
}

/** Proof that a connection still carries data: one checked send from `from` to `to`. */
export async function expectRoundTrip(h: Harness, from: Side, to: Side, tag = 'probe'): Promise<void> {
  const src = region(from.pz, 32);
  const dst = region(to.pz, 32, MemAccess.ALL, 0);
  to.ep.postRecv([seg(dst.lmr, 0, 32)], `${tag}-recv`);
  from.ep.postSend([seg(src.lmr, 0, 32)], `${tag}-send`);
  await h.nextCompletion(from.request, { cookie: `${tag}-send`, op: 'send', status: DtoStatus.SUCCESS });
  await h.nextCompletion(to.recv, { cookie: `${tag}-recv`, op: 'recv', status: DtoStatus.SUCCESS, transferredLength: 32 });
  expectSameBytes(dst.bytes, src.bytes, `${tag} payload`);
}
