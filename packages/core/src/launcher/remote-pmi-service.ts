import type { Socket } from 'node:net';
import { PassThrough, type Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { PmiServer } from '../runtime/pmi/pmi-server.js';
import type { CreatePmiServer, LauncherPmiServerOptions } from './pmi-server-port.js';

/**
 * The PMI-1 server of a job across hosts: listens on TCP (the ranks get `PMI_PORT`) and admits only
 * clients that prove they hold the job key (pmi-port-auth.ts); a foreign connection is refused without
 * any event of the job. It listens before the job starts (the ranks' environment names its port), and
 * hands the `Job` what it expects of a launcher's server: for each rank a stream that says when the
 * rank spoke PMI and when its connection closed, as the PMI_FD socket of a local rank does.
 */
export class RemotePmiService {
  readonly server: PmiServer;
  readonly #links: PassThrough[];
  #job: LauncherPmiServerOptions | undefined;

  constructor(size: number, jobKey: Uint8Array, logger?: Logger, processMapping?: string) {
    this.#links = Array.from({ length: size }, () => new PassThrough());
    this.server = new PmiServer({
      size,
      portAuthKey: jobKey,
      processMapping,
      logger,
      onAbort: (rank, code) => this.#job?.onAbort(rank, code),
      onFinalize: (rank) => this.#job?.onFinalize(rank),
      onProtocolError: (rank, message) => this.#job?.onProtocolError(rank, message),
      onDisconnect: (rank) => this.#job?.onDisconnect(rank),
      onPortClient: (rank, socket) => this.#watch(rank, socket),
    });
  }

  /** Listens on `host`; resolves with the port. */
  listen(host: string): Promise<number> {
    return this.server.listen(host);
  }

  /** The stream standing for `rank`'s PMI connection (the rank process's `pmi`). */
  linkOf(rank: number): Duplex {
    return this.#links[rank];
  }

  /** The `Job`'s server: its callbacks are this service's; attaching is done by the ranks connecting. */
  readonly create: CreatePmiServer = (options) => {
    this.#job = options;
    return { attach: () => undefined, close: () => this.server.close() };
  };

  #watch(rank: number, socket: Socket): void {
    const link = this.#links[rank];
    // One byte: the Job notes that the rank spoke PMI.
    link.write('.');
    socket.once('close', () => link.destroy());
  }
}
