import { DatStatus, DtoStatus } from '../../dat/status.js';
import { MemAccess } from '../../dat/memory.js';
import { EpState } from '../../dat/endpoint.js';
import { BoundPsp, copyIov, defer, EndpointBase, gatherInto, IovWriter, type DtoRequest } from '../../provider-kit/index.js';
import type { LoopbackIa } from './ia.js';
import { LoopbackConnectionRequest } from './psp.js';

/**
 * An endpoint whose peer is another object in this process. Requests are delivered in post
 * order by `pump`; a send that finds no posted receive stalls the queue (and everything
 * behind it) until the peer posts one, as a reliable connection does.
 */
export class LoopbackEndpoint extends EndpointBase {
  declare readonly ia: LoopbackIa;
  private peer: LoopbackEndpoint | undefined;
  private pumpScheduled = false;
  private pendingConnect = false;

  protected startConnect(address: string, connQual: number, privateData: Uint8Array): void {
    this.pendingConnect = true;
    queueMicrotask(() => {
      if (!this.pendingConnect) return;
      const fabric = this.ia.fabric;
      const psp = fabric.listeners.route(address, connQual, fabric.knows(address));
      if (!(psp instanceof BoundPsp)) return this.fail(psp.type, psp.reason);
      // Like tcp, a request with the wrong job key is dropped before any CR event: the client times out.
      if (!this.ia.sameJobAs(psp.ia)) return;
      psp.raiseRequest(new LoopbackConnectionRequest(psp, this, privateData));
    });
  }

  protected cancelConnect(): void {
    this.pendingConnect = false;
  }

  protected startDisconnect(_abrupt: boolean): void {
    const peer = this.peer;
    this.peer = undefined;
    queueMicrotask(() => {
      this.connectionLost('connection-disconnected');
      peer?.remoteClosed('connection-disconnected', 'the peer disconnected');
    });
  }

  protected teardown(): void {
    this.pendingConnect = false;
    const peer = this.peer;
    this.peer = undefined;
    if (peer !== undefined) queueMicrotask(() => peer.remoteClosed('connection-disconnected', 'the peer freed its endpoint'));
  }

  protected submit(_request: DtoRequest): void {
    this.schedulePump();
  }

  protected override onRecvPosted(): void {
    // The peer may be stalled on a send that needs this receive.
    if (this.peer !== undefined && this.state === EpState.CONNECTED) this.peer.schedulePump();
  }

  // ---- called by the peer, the CR and the IA ------------------------------------------------

  awaitingAnswer(): boolean {
    return this.pendingConnect && this.state === EpState.ACTIVE_CONNECTION_PENDING;
  }

  link(peer: LoopbackEndpoint): void {
    this.peer = peer;
  }

  linked(remoteAddress: string, privateData: Uint8Array | undefined): void {
    this.pendingConnect = false;
    this.established(remoteAddress, privateData);
    this.schedulePump();
  }

  rejected(privateData: Uint8Array): void {
    if (!this.pendingConnect) return;
    this.pendingConnect = false;
    this.connectFailed('connection-peer-rejected', 'the peer rejected the connection request', privateData);
  }

  peerVanished(reason: string): void {
    this.connectFailed('connection-unreachable', reason);
  }

  remoteClosed(type: 'connection-disconnected' | 'connection-broken', reason: string): void {
    this.peer = undefined;
    this.connectionLost(type, reason);
  }

  /** The IA is crashing: the peer sees a broken connection, this side sees nothing more. */
  crash(): void {
    const peer = this.peer;
    this.peer = undefined;
    this.pendingConnect = false;
    if (peer !== undefined) queueMicrotask(() => peer.remoteClosed('connection-broken', 'the peer was lost'));
  }

  // ---- data path --------------------------------------------------------------------------

  private readonly pumpTask = (): void => {
    this.pumpScheduled = false;
    this.pump();
  };

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    defer(this.pumpTask);
  }

  private pump(): void {
    for (let req = this.requests.peek(); req !== undefined; req = this.requests.peek()) {
      const peer = this.peer;
      if (peer === undefined || this.state !== EpState.CONNECTED) return;
      if (!this.deliver(req, peer)) return;
    }
  }

  /** Carry out the head request at `peer`; false if it must wait for a receive. */
  private deliver(req: DtoRequest, peer: LoopbackEndpoint): boolean {
    if (req.op === 'send') {
      const recv = peer.takeRecv();
      if (recv === undefined) return false;
      if (recv.length < req.length) {
        peer.completeRecv(recv, DtoStatus.LOCAL_LENGTH, 0);
        this.completeRequest(DtoStatus.REMOTE_RESPONDER, DatStatus.LENGTH_ERROR);
        return true;
      }
      copyIov(req.iov, recv.iov, req.length);
      peer.completeRecv(recv, DtoStatus.SUCCESS, req.length);
      this.completeRequest();
      return true;
    }
    const remote = req.remote!;
    const need = req.op === 'rdma-read' ? MemAccess.REMOTE_READ : MemAccess.REMOTE_WRITE;
    const grant = peer.ia.rmrTable.check(remote.rmrContext, peer.pz, remote.targetOffset, req.length, need);
    if (typeof grant === 'string') {
      this.completeRequest(DtoStatus.REMOTE_ACCESS, grant);
      return true;
    }
    if (req.op === 'rdma-read') new IovWriter(req.iov).write(grant.bytes.subarray(grant.start, grant.start + req.length));
    else gatherInto(req.iov, grant.bytes, grant.start);
    if (req.op === 'rdma-write-immediate') peer.raiseImmediate(req.immediate, req.length);
    this.completeRequest();
    return true;
  }


  private fail(type: 'connection-unreachable' | 'connection-non-peer-rejected', reason: string): void {
    this.pendingConnect = false;
    this.connectFailed(type, reason);
  }
}
