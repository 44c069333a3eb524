import type { Connections, Endpoint } from '@dapl/core';

/**
 * Each peer's endpoint for Amsends, in order: calls made before the connection exists wait for it
 * and run in the order they were made, ahead of any later one.
 */
export class PeerPosts {
  readonly #eps: (Endpoint | undefined)[] = [];
  readonly #waiting: (((ep: Endpoint | Error) => void)[] | undefined)[] = [];

  constructor(private readonly connections: Connections) {}

  /** Run `post` with the peer's connected endpoint (now, or once connected), or `failed` if it cannot connect. */
  with(peer: number, post: (ep: Endpoint | Error) => void): void {
    const ep = this.#eps[peer];
    if (ep !== undefined && this.#waiting[peer] === undefined) return post(ep);
    const queue = this.#waiting[peer];
    if (queue !== undefined) {
      queue.push(post);
      return;
    }
    this.#waiting[peer] = [post];
    this.connections.endpoint(peer).then(
      (connected) => this.#flush(peer, connected),
      (error: unknown) => this.#flush(peer, new Error(`cannot connect to rank ${peer}: ${String(error)}`, { cause: error })),
    );
  }

  #flush(peer: number, result: Endpoint | Error): void {
    if (!(result instanceof Error)) this.#eps[peer] = result;
    const queue = this.#waiting[peer] ?? [];
    this.#waiting[peer] = undefined;
    for (const post of queue) post(result);
  }
}
