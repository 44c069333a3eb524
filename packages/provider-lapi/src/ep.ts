import { EpState, type DatStatus, type DtoStatus } from '@dapl/core';
import { EndpointBase, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import type { LapiFabric } from './fabric.js';
import type { LapiIa } from './ia.js';
import { LapiDataPath } from './progress.js';
import { LapiConnectionRequest } from './psp.js';

type LossType = 'connection-disconnected' | 'connection-broken';

/**
 * A DAT endpoint over LAPI: a connection is a pair of tasks that address each other. The kit owns
 * argument checks, queues and completions; connection set-up is a few modelled delays; the data path
 * (progress.ts) models each DTO's time as LAPI Amsend / Put / Get.
 */
export class LapiEndpoint extends EndpointBase {
  declare readonly ia: LapiIa;
  /** The connected peer endpoint, while connected. */
  peer: LapiEndpoint | undefined;
  /** Bumped whenever this endpoint's connection ends or changes: events of an older one are dropped. */
  gen = 0;
  private pendingConnect = false;
  private readonly path: LapiDataPath;

  constructor(...args: ConstructorParameters<typeof EndpointBase>) {
    super(...args);
    this.path = new LapiDataPath(this, (args[0] as LapiIa).fabric);
  }

  get fabric(): LapiFabric {
    return this.ia.fabric;
  }

  get node(): number {
    return this.ia.node;
  }

  // ---- kit hooks ----------------------------------------------------------------------------

  protected startConnect(address: string, connQual: number, privateData: Uint8Array): void {
    this.pendingConnect = true;
    this.later(() => {
      if (!this.pendingConnect) return;
      const target = this.fabric.ia(address);
      if (target === undefined) return this.fail('connection-unreachable', `no IA at ${address}`);
      const psp = this.fabric.listener(address, connQual);
      if (psp === undefined || psp.freed) return this.fail('connection-non-peer-rejected', `nothing listens at ${address} conn-qual ${connQual}`);
      // A request with the wrong job key is dropped before any CR event: the client times out.
      if (!this.ia.sameJobAs(psp.ia)) return;
      psp.raiseRequest(new LapiConnectionRequest(psp, this, privateData));
    });
  }

  protected cancelConnect(): void {
    this.pendingConnect = false;
  }

  protected startDisconnect(_abrupt: boolean): void {
    const peer = this.detach();
    this.later(() => {
      this.connectionLost('connection-disconnected');
      peer?.remoteClosed(this, 'connection-disconnected', 'the peer disconnected');
    });
  }

  protected teardown(): void {
    this.pendingConnect = false;
    const peer = this.detach();
    if (peer !== undefined) this.later(() => peer.remoteClosed(this, 'connection-disconnected', 'the peer freed its endpoint'));
  }

  protected submit(request: DtoRequest): void {
    const clock = this.ia.clock;
    clock.charge(this.fabric.params.lapiCallNs);
    this.path.submit(request, clock.nowNs);
  }

  protected override onRecvPosted(): void {
    if (this.peer !== undefined && this.state === EpState.CONNECTED) this.peer.path.peerPostedRecv(this.ia.clock.nowNs);
  }

  // ---- the data path's view -----------------------------------------------------------------

  peekRequest(): DtoRequest | undefined {
    return this.requests.peek();
  }

  requestAt(index: number): DtoRequest | undefined {
    return this.requests.at(index);
  }

  finishHead(status: DtoStatus, reason: DatStatus | undefined): void {
    this.completeRequest(status, reason);
  }

  override takeRecv(): PostedRecv | undefined {
    return super.takeRecv();
  }

  completeRecvAt(recv: PostedRecv, status: DtoStatus, length: number): void {
    this.completeRecv(recv, status, length);
  }

  immediateArrived(immediate: number, length: number): void {
    this.raiseImmediate(immediate, length);
  }

  /** An active-messages failure this endpoint's side found: an `async-error` on its connect EVD. */
  asyncError(status: DatStatus, message: string): void {
    this.evds.connect.push({ type: 'async-error', status, message, ep: this });
  }

  // ---- called by the CR, the peer and the IA ------------------------------------------------

  awaitingAnswer(): boolean {
    return this.pendingConnect && this.state === EpState.ACTIVE_CONNECTION_PENDING;
  }

  link(peer: LapiEndpoint): void {
    this.gen++;
    this.path.reset();
    this.peer = peer;
  }

  linked(remoteAddress: string, privateData: Uint8Array | undefined): void {
    this.pendingConnect = false;
    this.established(remoteAddress, privateData);
  }

  rejected(privateData: Uint8Array): void {
    if (!this.pendingConnect) return;
    this.pendingConnect = false;
    this.connectFailed('connection-peer-rejected', 'the peer rejected the connection request', privateData);
  }

  peerVanished(reason: string): void {
    this.connectFailed('connection-unreachable', reason);
  }

  remoteClosed(from: LapiEndpoint, type: LossType, reason: string): void {
    if (this.peer !== from) return; // a newer connection, or already closed
    this.detach();
    this.connectionLost(type, reason);
  }

  /** The IA is crashing: the peer sees a broken connection, this side sees nothing more. */
  crash(): void {
    this.pendingConnect = false;
    const peer = this.detach();
    if (peer !== undefined) this.later(() => peer.remoteClosed(this, 'connection-broken', 'the peer was lost'));
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Run `action` one connection set-up leg from now (this node's clock). */
  private later(action: () => void): void {
    this.fabric.kernel.schedule(this.ia.clock.nowNs + this.fabric.params.cmDelayNs, action);
  }

  private detach(): LapiEndpoint | undefined {
    const peer = this.peer;
    this.peer = undefined;
    this.gen++;
    this.path.reset();
    return peer;
  }

  private fail(type: 'connection-unreachable' | 'connection-non-peer-rejected', reason: string): void {
    this.pendingConnect = false;
    this.connectFailed(type, reason);
  }
}
