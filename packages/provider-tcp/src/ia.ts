import { createServer, isIP, type Server, type Socket } from 'node:net';
import { DatError, DatStatus, type EndpointAttributes } from '@dapl/core';
import { IaBase, type EvdQueue, type IaBaseInit, type KitEvds, type KitPz, type PspBase } from '@dapl/core/provider-kit';
import { BusyPoll } from './busy-poll.js';
import type { ConnectionOptions } from './connection.js';
import { TcpEndpoint } from './ep.js';
import { keepAliveOptions, probeIntervalMs, type TcpParameters } from './params.js';
import { ProcessHandles } from './process-handles.js';
import { TcpPsp } from './psp.js';

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/;

/** A tcp IA: its address is the host it listens on; a PSP is a listening port. */
export class TcpIa extends IaBase {
  /** One poller for all of the IA's connections (`tcp.busyPoll`, `tcp.pollUs`). */
  readonly busyPoll: BusyPoll;
  readonly #connectionOptions: ConnectionOptions;
  /** The IA's listeners and sockets, so `keepProcessAlive(false)` can unref them (and those opened later). */
  readonly #handles = new ProcessHandles();
  /** Accepted connections not yet authenticated (see `admitUnauthenticated`). */
  #unauthenticated = 0;
  #warnedFull = false;

  constructor(
    init: IaBaseInit,
    readonly params: TcpParameters,
    jobKey: Uint8Array,
    /** Busy-polling window in µs (0: never; see `pollWindowUs`). */
    pollUs: number,
  ) {
    super(init);
    this.busyPoll = new BusyPoll(pollUs);
    const poll = this.busyPoll;
    this.#connectionOptions = { jobKey, maxPayload: this.limits.maxMessageSize, copyThreshold: params.copyThreshold, logger: this.logger, onTraffic: pollUs > 0 ? () => poll.kick() : undefined, probeMs: probeIntervalMs(params) };
  }

  /** The kit's counters plus the busy poller's: its window in µs (0: it never polls), the loop turns it has spent, and its pauses on a busy host. */
  override counters(): Readonly<Record<string, number>> {
    const poll = this.busyPoll;
    return { ...super.counters(), busyPollUs: poll.windowUs, busyPollTurns: poll.turns, busyPollBackoffs: poll.backoffs };
  }

  /**
   * Admit one more connection that has not authenticated yet (false beyond `maxUnauthenticated`:
   * the caller closes it, and it is counted); `release` when it authenticates or goes.
   */
  admitUnauthenticated(): { release(): void } | undefined {
    if (this.#unauthenticated >= this.params.maxUnauthenticated) {
      this.count('refusedUnauthenticated');
      if (!this.#warnedFull) this.logger.warn({ limit: this.params.maxUnauthenticated }, 'tcp.maxUnauthenticated connections are waiting to authenticate: closing further ones until some do');
      this.#warnedFull = true;
      return undefined;
    }
    this.#unauthenticated++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#unauthenticated--;
      },
    };
  }

  keepProcessAlive(alive: boolean): void {
    this.#handles.keepAlive(alive);
  }

  /** Track a listener or socket of this IA (see `keepProcessAlive`). */
  trackHandle(handle: Server | Socket): void {
    this.#handles.track(handle);
  }

  connectionOptions(): ConnectionOptions {
    return this.#connectionOptions;
  }

  override validateAddress(address: string): void {
    if (isIP(address) === 0 && !HOST_NAME.test(address)) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must be an IP address or host name, got ${JSON.stringify(address.slice(0, 80))}`, { argument: 'address' });
    }
  }

  protected listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase> {
    const server = createServer({
      noDelay: true,
      // Nothing is read before the accepted socket moves to its read buffer (read-buffer.ts).
      pauseOnConnect: true,
      ...keepAliveOptions(this.params),
      // Accepted sockets take one mark for both directions; reading stops at frame level anyway.
      highWaterMark: this.params.writeBufferBytes,
    });
    return new Promise((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') reject(new DatError(DatStatus.CONN_QUAL_IN_USE, `conn-qual ${connQual} (port) is already in use on ${this.address}`, { argument: 'connQual' }));
        else if (err.code === 'EACCES') reject(new DatError(DatStatus.PRIVILEGES_VIOLATION, `not permitted to listen on port ${connQual}`, { argument: 'connQual' }));
        else reject(new DatError(DatStatus.INSUFFICIENT_RESOURCES, `cannot listen on ${this.address}:${connQual ?? 0}: ${err.message}`, { argument: 'connQual', cause: err }));
      });
      this.trackHandle(server);
      server.listen({ host: this.params.interface, port: connQual ?? 0, exclusive: true }, () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.logger.warn({ err }, 'listener error'));
        const address = server.address();
        const port = typeof address === 'object' && address !== null ? address.port : connQual!;
        resolve(new TcpPsp(this, port, evd, server));
      });
    });
  }

  protected newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): TcpEndpoint {
    return new TcpEndpoint(this, pz, evds, attributes);
  }

  protected async shutdown(): Promise<void> {
    this.busyPoll.close();
  }
}
