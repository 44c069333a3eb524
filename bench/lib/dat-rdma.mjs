// The DAT-level baseline of the one-sided benchmarks (bench/osu-rma.mjs): RDMA write and read
// between ranks 0 and 1 done directly with DAT on MPI's IA, in the same job, on connections of
// their own: what an MPI put or get over the same transport is judged against.
import { DtoStatus, MemAccess, startConnections } from '@dapl/core';

export class DatRdma {
  /** Collective (the connection service starts with a fence); ranks 0 and 1 get the pair. */
  static async start(mpi, maxSize) {
    const job = mpi.job;
    const connections = await startConnections(job.ia, job.runtime, { keyPrefix: 'osu-rma-dat' });
    if (job.rank > 1) {
      await connections.close();
      return undefined;
    }
    const pz = connections.pz;
    const buf = new Uint8Array(Math.max(maxSize, 16));
    const lmr = pz.registerLmr(buf, MemAccess.ALL);
    const rmr = pz.createRmr();
    const mine = rmr.bind(lmr, 0, lmr.length, MemAccess.REMOTE);
    // The triplets travel over MPI (the job's own messages), not over the pair being measured.
    const out = new Float64Array([Number(mine.rmrContext >> 32n), Number(mine.rmrContext & 0xffffffffn), mine.targetOffset, mine.length]);
    const got = new Float64Array(4);
    await mpi.world.sendrecv(out, 1 - job.rank, 77, got, 1 - job.rank, 77);
    const remote = { rmrContext: (BigInt(got[0]) << 32n) | BigInt(got[1]), targetOffset: got[2], length: got[3] };
    const ep = await connections.endpoint(1 - job.rank);
    return new DatRdma(connections, ep, lmr, rmr, remote);
  }

  constructor(connections, ep, lmr, rmr, remote) {
    this.connections = connections;
    this.ep = ep;
    this.lmr = lmr;
    this.rmr = rmr;
    this.remote = remote;
  }

  async #completions(count) {
    for (let i = 0; i < count; i++) {
      const event = await this.connections.evds.request.wait({ timeoutMs: 60_000 });
      if (event.type !== 'dto-completion' || event.status !== DtoStatus.SUCCESS) throw new Error(`DAT baseline: ${event.type} ${event.status}`);
    }
  }

  /** `window` RDMA writes (or reads) of `n` bytes posted at once, then their completions (the target's, for writes). */
  async burst(read, n, window) {
    const iov = [{ lmr: this.lmr, offset: 0, length: n }];
    const remote = { ...this.remote, length: n };
    for (let w = 0; w < window; w++) {
      if (read) this.ep.postRdmaRead(iov, w, remote);
      else this.ep.postRdmaWrite(iov, w, remote);
    }
    await this.#completions(window);
  }

  async close() {
    this.rmr.free();
    await this.connections.close();
  }
}
