import { connect as netConnect } from 'node:net';
import { EpState, type DatStatus, type DtoStatus } from '@dapl/core';
import { EndpointBase, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import { TcpConnection } from './connection.js';
import { keepAliveOptions } from './params.js';
import { ReadBuffer } from './read-buffer.js';
import type { TcpIa } from './ia.js';
import type { DataPath, DataPathHost } from './progress.js';

const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET']);

/**
 * A tcp endpoint: one socket per connection. The kit owns argument checks, queues and
 * completions; this class starts and ends connections and hands requests to the data path.
 */
export class TcpEndpoint extends EndpointBase implements DataPathHost {
  declare readonly ia: TcpIa;
  private connection: TcpConnection | undefined;
  private data: DataPath | undefined;
  private closeTimer: ReturnType<typeof setTimeout> | undefined;

  get rmrTable() {
    return this.ia.rmrTable;
  }

  // ---- kit hooks ----------------------------------------------------------------------------

  protected startConnect(address: string, connQual: number, privateData: Uint8Array): void {
    const { writeBufferBytes } = this.ia.params;
    // Node passes writableHighWaterMark on to the socket; @types/node 20 does not declare it.
    const highWaterMark: object = { writableHighWaterMark: writeBufferBytes };
    const reader = new ReadBuffer();
    const socket = netConnect({ host: address, port: connQual, ...keepAliveOptions(this.ia.params), onread: reader.onread, ...highWaterMark });
    this.ia.trackHandle(socket);
    let connected = false;
    socket.once('connect', () => {
      connected = true;
    });
    // Before the connection's own handler, so a refused connect is told apart from a lost one.
    socket.prependOnceListener('error', (err: NodeJS.ErrnoException) => {
      if (connected || this.connection !== conn) return;
      this.connection = undefined;
      socket.destroy();
      if (REFUSED.has(err.code ?? '')) this.connectFailed('connection-non-peer-rejected', `nothing listens at ${address}:${connQual} (${err.code})`);
      else this.connectFailed('connection-unreachable', `${address}:${connQual} is unreachable (${err.code ?? err.message})`);
    });
    const conn = new TcpConnection(socket, 'client', this.ia.connectionOptions(), {
      accepted: (pd) => {
        this.data = conn.open(this);
        this.established(address, pd);
      },
      rejected: (pd) => {
        this.connection = undefined;
        this.connectFailed('connection-peer-rejected', 'the server rejected the connection request', pd);
      },
      closed: (graceful, reason) => this.onClosed(conn, graceful, reason),
    }, (d) => this.ia.adjustBuffered(d), reader);
    conn.setHello(connQual, this.ia.address, privateData);
    this.connection = conn;
  }

  protected cancelConnect(): void {
    this.dropConnection();
  }

  protected startDisconnect(abrupt: boolean): void {
    if (abrupt || this.data === undefined) {
      this.dropConnection();
      queueMicrotask(() => this.connectionLost('connection-disconnected', 'disconnected (abrupt)'));
      return;
    }
    this.data.close();
    // A peer that never closes its side does not keep us waiting.
    this.closeTimer = setTimeout(() => {
      this.dropConnection();
      this.connectionLost('connection-disconnected', 'the peer did not confirm the disconnect in time');
    }, 2_000);
    this.closeTimer.unref();
  }

  protected submit(request: DtoRequest): void {
    this.data!.submit(request);
  }

  protected override onRecvPosted(): void {
    if (this.data?.stalledOnRecv) this.data.unstall();
  }

  protected teardown(): void {
    this.dropConnection();
  }

  // ---- the server side hands us its connection -----------------------------------------------

  /** @internal Called by the CR on accept: the connection is ours, the data path starts. */
  adoptServerConnection(conn: TcpConnection, privateData: Uint8Array, remoteAddress: string): void {
    if (this.state !== EpState.PASSIVE_CONNECTION_PENDING) {
      // Freed, disconnected or timed out since the accept: the client must not see an ACCEPT.
      conn.destroy();
      return;
    }
    this.connection = conn;
    conn.rebind({ closed: (graceful, reason) => this.onClosed(conn, graceful, reason) });
    this.data = conn.accept(privateData, this);
    this.established(remoteAddress, undefined);
  }

  /** @internal The CR's connection died before the consumer accepted. */
  adoptionFailed(reason: string): void {
    this.connectFailed('connection-unreachable', reason);
  }

  // ---- DataPathHost: the kit's helpers, reachable from the data path -------------------------

  peekRequest(): DtoRequest | undefined {
    return this.requests.peek();
  }

  override completeRequest(status: DtoStatus, reason?: DatStatus): DtoRequest | undefined {
    return super.completeRequest(status, reason);
  }

  peekRecv(): PostedRecv | undefined {
    return this.peekPostedRecv();
  }

  override takeRecv(): PostedRecv | undefined {
    return super.takeRecv();
  }

  override completeRecv(recv: PostedRecv, status: DtoStatus, length: number): void {
    super.completeRecv(recv, status, length);
  }

  override raiseImmediate(immediate: number, length: number): void {
    super.raiseImmediate(immediate, length);
  }

  recvEvdHasRoom(): boolean {
    return this.evds.recv.hasRoom;
  }

  onRecvEvdRoom(listener: () => void): void {
    this.evds.recv.onRoom(listener);
  }

  // ---- internals ----------------------------------------------------------------------------

  private onClosed(conn: TcpConnection, graceful: boolean, reason: string): void {
    if (this.connection !== conn) return;
    this.connection = undefined;
    this.data = undefined;
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    const state = this.state;
    if (state === EpState.ACTIVE_CONNECTION_PENDING) {
      this.connectFailed('connection-non-peer-rejected', `the server closed the connection before answering (${reason}); is the job key right?`);
      return;
    }
    this.connectionLost(graceful || state === EpState.DISCONNECT_PENDING ? 'connection-disconnected' : 'connection-broken', reason);
  }

  private dropConnection(): void {
    const conn = this.connection;
    this.connection = undefined;
    this.data = undefined;
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    conn?.destroy();
  }
}
