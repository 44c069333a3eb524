import type { Logger } from 'pino';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { EpState, type Endpoint, type EndpointCreateAttributes } from '../../dat/endpoint.js';
import type { SharedReceiveQueue } from '../../dat/srq.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { ConnectionEvent, ConnectionRequestEvent, DatEvent } from '../../dat/events.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import type { ConnectionRequest, PublicServicePoint } from '../../dat/psp.js';
import type { ProtectionZone } from '../../dat/pz.js';
import type { Runtime } from '../runtime.js';
import { startTimeout } from '../wall-clock.js';
import { connectionEventError, connectStepError, connectTimeoutError, serviceClosedError } from './connect-errors.js';
import { LinkState, PeerLink } from './peer-link.js';
import type { Connections } from './types.js';
import { decodeListenAddress, decodeWiringRequest, encodeWiringRequest, type ListenAddress } from './wiring.js';

/** Extra time the higher rank's callers wait beyond the endpoint's own connect timeout, which should fire first. */
const CONNECT_BACKSTOP_MS = 1_000;

/** What `startConnections` set up and hands to the service. */
export interface ConnectionServiceInit {
  readonly ia: InterfaceAdapter;
  readonly runtime: Runtime;
  readonly pz: ProtectionZone;
  readonly evds: { readonly recv: EventDispatcher; readonly request: EventDispatcher };
  /** Connection requests (from `psp`) and every endpoint's connection events arrive here. */
  readonly connectEvd: EventDispatcher;
  readonly psp: PublicServicePoint;
  readonly attributes: EndpointCreateAttributes | undefined;
  /** The shared receive queue of every peer endpoint (in `attributes`), freed on close. */
  readonly srq?: SharedReceiveQueue;
  readonly prepare: ((ep: Endpoint, peer: number) => void) | undefined;
  readonly keyPrefix: string;
  readonly connectTimeoutMs: number;
  readonly logger: Logger;
  /** Objects the service created and so frees on close. */
  readonly owned: { readonly pz: boolean; readonly evds: boolean };
}

/** What an endpoint the service made is for: a peer's connection, or a `reverse` request that will be rejected. */
interface EndpointRole {
  readonly peer: number;
  /** `self-passive`: the accepting end of this rank's connection to itself (the link holds the other end). */
  readonly kind: 'peer' | 'reverse' | 'self-passive';
}

/**
 * The uDAPL paper's scheme on demand: only the lower rank of a pair accepts, from the higher rank.
 * The higher rank connects with a `connect` request; the lower rank, wanting a connection,
 * sends a `reverse` request that the higher rank rejects after starting its own connect. So
 * when both start at once there is still exactly one connection: the higher rank's.
 */
export class ConnectionService implements Connections {
  readonly rank: number;
  readonly size: number;
  readonly #init: ConnectionServiceInit;
  readonly #log: Logger;
  readonly #links = new Map<number, PeerLink>();
  /** Live endpoints made by this service. */
  readonly #roles = new Map<Endpoint, EndpointRole>();
  /** Peer endpoints ever made, so `peerOf` still answers for events queued after an endpoint went away. */
  readonly #peers = new WeakMap<Endpoint, number>();
  readonly #listenAddresses = new Map<number, Promise<ListenAddress>>();
  #open = 0;
  #closing = false;
  #closed: Promise<void> | undefined;
  #allDisconnected: (() => void) | undefined;

  constructor(init: ConnectionServiceInit) {
    this.#init = init;
    this.rank = init.runtime.rank;
    this.size = init.runtime.size;
    this.#log = init.logger;
    init.connectEvd.setNotify(this.#drain);
  }

  get openConnections(): number {
    return this.#open;
  }

  get pz(): ProtectionZone {
    return this.#init.pz;
  }

  get evds(): { readonly recv: EventDispatcher; readonly request: EventDispatcher } {
    return this.#init.evds;
  }

  endpoint(peer: number): Promise<Endpoint> {
    if (typeof peer !== 'number' || !Number.isSafeInteger(peer) || peer < 0 || peer >= this.size) {
      return Promise.reject(
        new DatError(DatStatus.INVALID_PARAMETER, `peer must be an integer in [0, ${this.size}), got ${String(peer)}`, {
          argument: 'peer',
        }),
      );
    }
    if (this.#closing) return Promise.reject(serviceClosedError(this.rank, peer));
    const link = this.#link(peer);
    if (link.state === LinkState.CONNECTED) return Promise.resolve(link.endpoint!);
    if (link.waiter !== undefined) return link.waiter.promise;
    // A connection to itself is made as a higher rank makes one: by connecting.
    const higher = this.rank >= peer;
    const limit = this.#init.connectTimeoutMs + (higher ? CONNECT_BACKSTOP_MS : 0);
    const promise = link.wait(limit, () => this.#waitExpired(link, limit), this.#startTimeout);
    if (link.state === LinkState.IDLE) {
      if (higher) this.#connect(link);
      else this.#askPeerToConnect(link);
    }
    return promise;
  }

  peerOf(ep: Endpoint): number | undefined {
    return this.#peers.get(ep);
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  // ---- making connections ------------------------------------------------------------------

  /** Higher rank: connect to the peer's PSP. */
  #connect(link: PeerLink): void {
    link.apply('connect');
    const peer = link.peer;
    this.#lookup(peer)
      .then((listen) => {
        if (this.#closing || link.state !== LinkState.CONNECTING || link.endpoint !== undefined) return;
        const ep = this.#createPeerEndpoint(peer);
        link.endpoint = ep;
        this.#log.debug({ peer, address: listen.address, connQual: listen.connQual }, 'connecting');
        ep.connect(listen.address, listen.connQual, { privateData: encodeWiringRequest({ kind: 'connect', rank: this.rank }), timeoutMs: this.#init.connectTimeoutMs });
      })
      .catch((error: unknown) => {
        if (link.state === LinkState.CONNECTING) this.#failLink(link, connectStepError(this.rank, peer, 'cannot connect to', error));
      });
  }

  /** Lower rank: ask the peer (with a `reverse` request it will reject) to connect to us. */
  #askPeerToConnect(link: PeerLink): void {
    link.apply('await');
    const peer = link.peer;
    this.#lookup(peer)
      .then((listen) => {
        if (this.#closing || link.state !== LinkState.AWAITING) return;
        const { ia, pz, evds, connectEvd, attributes } = this.#init;
        const ep = ia.createEp(pz, { recv: evds.recv, request: evds.request, connect: connectEvd }, attributes);
        this.#roles.set(ep, { peer, kind: 'reverse' });
        this.#log.debug({ peer }, 'asking the higher rank to connect');
        try {
          ep.connect(listen.address, listen.connQual, { privateData: encodeWiringRequest({ kind: 'reverse', rank: this.rank }), timeoutMs: this.#init.connectTimeoutMs });
        } catch (error) {
          this.#forget(ep);
          throw error;
        }
      })
      .catch((error: unknown) => {
        if (link.state === LinkState.AWAITING) this.#failLink(link, connectStepError(this.rank, peer, 'cannot ask to be connected by', error));
      });
  }

  #createPeerEndpoint(peer: number): Endpoint {
    const { ia, pz, evds, connectEvd, attributes, prepare } = this.#init;
    const ep = ia.createEp(pz, { recv: evds.recv, request: evds.request, connect: connectEvd }, attributes);
    this.#roles.set(ep, { peer, kind: 'peer' });
    this.#peers.set(ep, peer);
    try {
      prepare?.(ep, peer);
    } catch (error) {
      this.#forget(ep);
      throw error;
    }
    return ep;
  }

  #lookup(peer: number): Promise<ListenAddress> {
    const cached = this.#listenAddresses.get(peer);
    if (cached !== undefined) return cached;
    const key = `${this.#init.keyPrefix}-${peer}`;
    const found = this.#init.runtime.get(key).then((value) => decodeListenAddress(value, key));
    // A failed lookup is not cached: a later endpoint() retries it.
    found.catch(() => {
      if (this.#listenAddresses.get(peer) === found) this.#listenAddresses.delete(peer);
    });
    this.#listenAddresses.set(peer, found);
    return found;
  }

  // ---- events ------------------------------------------------------------------------------

  readonly #drain = (evd: EventDispatcher): void => {
    for (let event = evd.freed ? undefined : evd.dequeue(); event !== undefined; event = evd.freed ? undefined : evd.dequeue()) {
      try {
        this.#dispatch(event);
      } catch (error) {
        // Never let a bad event take down the event loop; it is a bug worth a loud log.
        this.#log.error({ err: error, event: event.type }, 'connections: failed to handle an event');
      }
    }
  };

  #dispatch(event: DatEvent): void {
    switch (event.type) {
      case 'connection-request':
        return this.#onRequest(event);
      case 'dto-completion':
      case 'software':
      case 'srq-limit-reached':
      case 'srq-ep-drained':
        return;
      case 'async-error':
        this.#log.warn({ status: event.status }, `async error on the connection EVD: ${event.message}`);
        return;
      default:
        return this.#onConnectionEvent(event);
    }
  }

  #onRequest({ request }: ConnectionRequestEvent): void {
    const decoded = decodeWiringRequest(request.privateData);
    if (this.#closing) return this.#refuse(request, 'the service is closing');
    if (typeof decoded === 'string') return this.#refuse(request, decoded);
    const { kind, rank: from } = decoded;
    if (from >= this.size || (from === this.rank && kind !== 'connect')) {
      return this.#refuse(request, `${kind} request claims rank ${from}, outside [0, ${this.size}) or this rank`);
    }
    if (from === this.rank) return this.#acceptSelf(request);
    const link = this.#link(from);
    if (kind === 'reverse') {
      if (from > this.rank) return this.#refuse(request, `reverse request from higher rank ${from}: the higher rank connects itself`);
      // Start our connect before rejecting, so it is on its way when the peer hears the answer.
      if (link.state === LinkState.IDLE) this.#connect(link);
      this.#log.debug({ peer: from }, 'reverse request: connecting to the peer');
      return this.#refuse(request, undefined);
    }
    if (from < this.rank) return this.#refuse(request, `connect request from lower rank ${from}: a lower rank asks with a reverse request`);
    if (link.state === LinkState.CONNECTED) return this.#refuse(request, `duplicate connect request from rank ${from}, which is already connected`);
    if (link.state === LinkState.ACCEPTING && link.endpoint !== undefined) {
      // The peer gave up on its earlier request and tried again: the newer one wins.
      this.#forget(link.endpoint);
      link.endpoint = undefined;
    }
    let ep: Endpoint | undefined;
    try {
      ep = this.#createPeerEndpoint(from);
      link.apply('accept');
      link.endpoint = ep;
      request.accept(ep);
      this.#log.debug({ peer: from }, 'accepted a connect request');
    } catch (error) {
      // createEp, prepare or accept threw: nothing half-made stays behind, and our callers hear why.
      if (ep !== undefined) this.#forget(ep);
      if (link.endpoint === ep) link.endpoint = undefined;
      this.#refuse(request, `accepting failed: ${String(error)}`);
      this.#failLink(link, connectStepError(this.rank, from, 'cannot accept the connection of', error));
    }
  }

  /** The passive end of this rank's connection to itself; the link tracks the active end. */
  #acceptSelf(request: ConnectionRequest): void {
    const { ia, pz, evds, connectEvd, attributes, prepare } = this.#init;
    const link = this.#link(this.rank);
    if (link.state !== LinkState.CONNECTING) return this.#refuse(request, 'a connect request to itself that this rank did not make');
    let ep: Endpoint | undefined;
    try {
      ep = ia.createEp(pz, { recv: evds.recv, request: evds.request, connect: connectEvd }, attributes);
      this.#roles.set(ep, { peer: this.rank, kind: 'self-passive' });
      this.#peers.set(ep, this.rank);
      prepare?.(ep, this.rank);
      request.accept(ep);
    } catch (error) {
      if (ep !== undefined) this.#forget(ep);
      this.#refuse(request, `accepting the connection to itself failed: ${String(error)}`);
    }
  }

  #onConnectionEvent(event: ConnectionEvent): void {
    const role = this.#roles.get(event.ep);
    if (role === undefined) return; // an endpoint already discarded
    if (role.kind === 'reverse') return this.#onReverseEvent(event, role.peer);
    if (role.kind === 'self-passive') {
      if (event.type !== 'connection-established') this.#forget(event.ep);
      return;
    }
    const link = this.#link(role.peer);
    const current = link.endpoint === event.ep;
    switch (event.type) {
      case 'connection-established':
        if (!current || this.#closing || (link.state !== LinkState.CONNECTING && link.state !== LinkState.ACCEPTING)) {
          this.#forget(event.ep);
          return;
        }
        link.apply('established');
        this.#open++;
        this.#log.debug({ peer: role.peer, open: this.#open }, 'connection established');
        link.settle(event.ep);
        return;
      case 'connection-disconnected':
      case 'connection-broken':
        this.#forget(event.ep);
        if (!current) return;
        if (link.state === LinkState.CONNECTED) {
          link.endpoint = undefined;
          link.apply('lost');
          this.#open--;
          this.#log.debug({ peer: role.peer, open: this.#open, reason: event.reason }, event.type);
          if (this.#open === 0) this.#allDisconnected?.();
          return;
        }
        return this.#attemptFailed(link, event);
      default:
        this.#forget(event.ep);
        if (current) this.#attemptFailed(link, event);
    }
  }

  /** A pending peer endpoint did not make it. */
  #attemptFailed(link: PeerLink, event: ConnectionEvent): void {
    const accepting = link.state === LinkState.ACCEPTING;
    link.endpoint = undefined;
    link.apply('failed');
    if (accepting && link.waiter !== undefined && !this.#closing) {
      // The higher rank gave up on that request; our callers keep waiting (bounded) for a new one.
      this.#log.debug({ peer: link.peer, event: event.type, reason: event.reason }, 'an accepted connection failed; still waiting');
      link.apply('await');
      return;
    }
    link.settle(connectionEventError(this.rank, link.peer, event));
  }

  #onReverseEvent(event: ConnectionEvent, peer: number): void {
    this.#forget(event.ep);
    if (event.type === 'connection-peer-rejected') return; // the expected answer
    if (event.type === 'connection-established') {
      this.#log.warn({ peer }, 'a reverse request was accepted instead of rejected; dropping that connection');
      return;
    }
    const link = this.#link(peer);
    if (link.state === LinkState.AWAITING) this.#failLink(link, connectionEventError(this.rank, peer, event));
  }

  #waitExpired(link: PeerLink, limitMs: number): void {
    const state = link.state;
    if (state === LinkState.AWAITING) link.apply('failed');
    link.settle(connectTimeoutError(this.rank, link.peer, limitMs, state));
  }

  #failLink(link: PeerLink, error: DatError): void {
    if (link.endpoint !== undefined) this.#forget(link.endpoint);
    link.endpoint = undefined;
    if (link.state !== LinkState.IDLE && link.state !== LinkState.CONNECTED) link.apply('failed');
    link.settle(error);
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Timeouts on the rank's clock: virtual time under the simulator, where the host may take seconds for what the model does in microseconds. */
  readonly #startTimeout = (ms: number, action: () => void): (() => void) => startTimeout(this.#init.runtime.clock, ms, action);

  #link(peer: number): PeerLink {
    let link = this.#links.get(peer);
    if (link === undefined) {
      link = new PeerLink(peer);
      this.#links.set(peer, link);
    }
    return link;
  }

  #refuse(request: ConnectionRequest, why: string | undefined): void {
    if (why !== undefined) this.#log.debug({ remoteAddress: request.remoteAddress }, `rejected a connection request: ${why}`);
    try {
      request.reject();
    } catch (error) {
      this.#log.debug({ err: error }, 'could not reject a connection request');
    }
  }

  /** Stop tracking an endpoint (ended, or no longer wanted and never counted as open) and free it. */
  #forget(ep: Endpoint): void {
    this.#roles.delete(ep);
    if (ep.state === EpState.FREED) return;
    try {
      ep.free();
    } catch (error) {
      this.#log.debug({ err: error }, 'could not free an endpoint');
    }
  }

  async #close(): Promise<void> {
    this.#closing = true;
    const closed = serviceClosedError(this.rank);
    for (const link of this.#links.values()) {
      if (link.state !== LinkState.CONNECTED) {
        if (link.endpoint !== undefined) this.#forget(link.endpoint);
        link.endpoint = undefined;
        link.apply('reset');
      }
      link.settle(closed);
    }
    freeQuietly(this.#init.psp, this.#log);
    await this.#disconnectAll();
    if (!this.#init.connectEvd.freed) this.#init.connectEvd.setNotify(undefined);
    for (const ep of [...this.#roles.keys()]) this.#forget(ep);
    for (const link of this.#links.values()) {
      link.endpoint = undefined;
      link.apply('reset');
    }
    this.#open = 0;
    freeQuietly(this.#init.connectEvd, this.#log);
    if (this.#init.srq !== undefined) freeQuietly(this.#init.srq, this.#log);
    if (this.#init.owned.evds) {
      freeQuietly(this.#init.evds.recv, this.#log);
      freeQuietly(this.#init.evds.request, this.#log);
    }
    if (this.#init.owned.pz) freeQuietly(this.#init.pz, this.#log);
  }

  /** Graceful disconnects, so data in flight is delivered; bounded by the connect timeout. */
  async #disconnectAll(): Promise<void> {
    // A closed IA has already broken every connection and raises no more events.
    if (this.#open === 0 || this.#init.ia.closed) return;
    const done = new Promise<void>((resolve) => {
      const cancel = this.#startTimeout(this.#init.connectTimeoutMs, resolve);
      this.#allDisconnected = () => {
        cancel();
        resolve();
      };
    });
    for (const link of this.#links.values()) {
      if (link.state !== LinkState.CONNECTED) continue;
      const ep = link.endpoint!;
      try {
        ep.disconnect();
      } catch (error) {
        // No event will come for this one: count it down now.
        this.#log.debug({ err: error, peer: link.peer }, 'disconnect failed');
        this.#forget(ep);
        link.endpoint = undefined;
        link.apply('lost');
        this.#open--;
      }
    }
    if (this.#open > 0) await done;
    else this.#allDisconnected?.();
    this.#allDisconnected = undefined;
  }
}

function freeQuietly(handle: { free(): void; readonly freed: boolean }, log: Logger): void {
  if (handle.freed) return;
  try {
    handle.free();
  } catch (error) {
    log.debug({ err: error }, 'could not free a handle');
  }
}
