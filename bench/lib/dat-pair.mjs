// The DAT-level baseline the MPI benchmarks are judged against: the same exchange done directly
// with DAT on MPI's IA, in the same job. Shared by bench/osu.mjs and bench/stream-window.mjs.
import { DtoStatus, MemAccess, startConnections } from '@dapl/core';
import { skipping } from './skipping.mjs';

/**
 * The DAT baseline: a second set of connections on MPI's IA (its own PSP, endpoints and EVDs), with
 * `2 × window` receives of the largest size pre-posted; every exchange re-posts what it consumed.
 */
export class DatPair {
  static async start(mpi, maxSize, window) {
    const job = mpi.job;
    const connections = await startConnections(job.ia, job.runtime, { keyPrefix: 'osu-dat' });
    const peer = 1 - job.rank;
    const pz = connections.pz;
    const buf = new Uint8Array(Math.max(maxSize, 4));
    const lmr = pz.registerLmr(buf, MemAccess.LOCAL);
    const ep = await connections.endpoint(peer);
    const pair = new DatPair(connections, ep, lmr, job.rank, 2 * window + 2, () => mpi.wtime());
    await pair.#sync();
    return pair;
  }

  #recvs = 0;
  /** `clock`: the rank's clock in seconds (virtual under the simulator), as MPI's wtime. */
  constructor(connections, ep, lmr, rank, depth, clock) {
    this.clock = clock;
    this.connections = connections;
    this.ep = ep;
    this.lmr = lmr;
    this.rank = rank;
    this.whole = [{ lmr, offset: 0, length: lmr.length }];
    for (let i = 0; i < depth; i++) this.ep.postRecv(this.whole, i);
  }

  #iov(n) {
    return [{ lmr: this.lmr, offset: 0, length: n }];
  }

  async #received() {
    const event = await this.connections.evds.recv.wait({ timeoutMs: 60_000 });
    if (event.type !== 'dto-completion' || event.status !== DtoStatus.SUCCESS) throw new Error(`DAT baseline: ${event.type} ${event.status}`);
    this.ep.postRecv(this.whole, this.#recvs++);
  }

  async #sync() {
    this.ep.postSend(this.#iov(0), 'sync', { suppressCompletion: true });
    await this.#received();
  }

  async pingPong(n, iters) {
    const iov = this.#iov(n);
    for (let i = 0; i < iters; i++) {
      if (this.rank === 0) {
        this.ep.postSend(iov, i, { suppressCompletion: true });
        await this.#received();
      } else {
        await this.#received();
        this.ep.postSend(iov, i, { suppressCompletion: true });
      }
    }
  }

  stream(n, iters, window, skip) {
    const iov = this.#iov(n);
    return skipping(this.clock, skip, iters, async () => {
      if (this.rank === 0) {
        for (let w = 0; w < window; w++) this.ep.postSend(iov, w, { suppressCompletion: true });
        await this.#received();
      } else {
        for (let w = 0; w < window; w++) await this.#received();
        this.ep.postSend(this.#iov(0), 'ack', { suppressCompletion: true });
      }
    });
  }

  bistream(n, iters, window, skip) {
    const iov = this.#iov(n);
    return skipping(this.clock, skip, iters, async () => {
      for (let w = 0; w < window; w++) this.ep.postSend(iov, w, { suppressCompletion: true });
      for (let w = 0; w < window; w++) await this.#received();
    });
  }

  async close() {
    await this.connections.close();
  }
}

