import type { Server, Socket } from 'node:net';
import { ConnectionRequestBase, PspBase, type EvdQueue } from '@dapl/core/provider-kit';
import { TcpConnection } from './connection.js';
import type { TcpEndpoint } from './ep.js';
import type { TcpIa } from './ia.js';
import { adoptAccepted, ReadBuffer } from './read-buffer.js';

/** A listening socket; conn-qual = port. Clients are authenticated before a CR event is raised. */
export class TcpPsp extends PspBase {
  declare readonly ia: TcpIa;
  private readonly pending = new Set<TcpConnection>();

  constructor(ia: TcpIa, connQual: number, evd: EvdQueue, private readonly server: Server) {
    super(ia, connQual, evd);
    server.on('connection', (socket) => this.onSocket(socket));
  }

  private onSocket(accepted: Socket): void {
    if (this.freed) {
      accepted.destroy();
      return;
    }
    // Before any buffer is given to it: an unauthenticated connection is anybody's.
    const admitted = this.ia.admitUnauthenticated();
    if (admitted === undefined) {
      accepted.destroy();
      return;
    }
    const reader = new ReadBuffer();
    const adopted = adoptAccepted(accepted, reader, this.ia.params.writeBufferBytes);
    const socket = adopted ?? accepted;
    this.ia.trackHandle(socket);
    const { handshakeTimeoutMs } = this.ia.params;
    const timer = setTimeout(() => conn.destroy(), handshakeTimeoutMs);
    timer.unref();
    const conn: TcpConnection = new TcpConnection(socket, 'server', this.ia.connectionOptions(), {
      hello: (hello) => {
        clearTimeout(timer);
        admitted.release();
        if (hello.connQual !== this.connQual) {
          conn.destroy();
          return;
        }
        const cr = new TcpConnectionRequest(this, conn, hello.address, hello.privateData);
        conn.rebind({ closed: (_graceful, reason) => cr.lost(reason) });
        this.raiseRequest(cr);
      },
      closed: () => {
        clearTimeout(timer);
        admitted.release();
        this.pending.delete(conn);
      },
    }, (d) => this.ia.adjustBuffered(d), adopted === undefined ? undefined : reader);
    this.pending.add(conn);
  }

  /** An accepted or rejected request's connection is no longer the PSP's to close. */
  release(conn: TcpConnection): void {
    this.pending.delete(conn);
  }

  protected onFree(): void {
    this.server.close();
    for (const conn of this.pending) conn.destroy();
    this.pending.clear();
  }
}

export class TcpConnectionRequest extends ConnectionRequestBase<TcpEndpoint> {
  private lostReason: string | undefined;
  private waiting: TcpEndpoint | undefined;

  constructor(
    psp: TcpPsp,
    private readonly conn: TcpConnection,
    remoteAddress: string,
    privateData: Uint8Array,
  ) {
    super(psp, remoteAddress, privateData);
  }

  /** The client vanished before the consumer answered. */
  lost(reason: string): void {
    this.lostReason = reason;
    this.waiting?.adoptionFailed(reason);
  }

  protected doAccept(ep: TcpEndpoint, privateData: Uint8Array): void {
    (this.psp as TcpPsp).release(this.conn);
    if (this.lostReason !== undefined) {
      const reason = this.lostReason;
      queueMicrotask(() => ep.adoptionFailed(`the client went away before the accept: ${reason}`));
      return;
    }
    this.waiting = ep;
    queueMicrotask(() => ep.adoptServerConnection(this.conn, privateData, this.remoteAddress));
  }

  protected doReject(privateData: Uint8Array): void {
    (this.psp as TcpPsp).release(this.conn);
    if (this.lostReason === undefined) this.conn.reject(privateData);
  }
}
