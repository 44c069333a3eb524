// The DAT-level baseline the MPI benchmarks are judged against: the same exchange done directly
// with DAT on MPI's IA, in the same job. Shared by bench/osu.mjs, bench/stream-window.mjs and
// bench/osu-rma.mjs (its RDMA write and read bursts).
import { DtoStatus, MemAccess, startConnections } from '@dapl/core';
import { skipping } from './skipping.mjs';

/**
 * The DAT baseline: a second set of connections on MPI's IA (its own PSP, endpoints and EVDs), with
 * `2 × window` receives of the largest size pre-posted; every exchange re-posts what it consumed.
 * Where the provider has RDMA write with immediate or RDMA read, each rank also exposes its buffer
 * to the other, for the write stream (`writable`) and the one-sided baseline (`burst`).
 */
export class DatPair {
  /**
   * Collective: every rank of the job calls it, since the connection service starts with a fence.
   * Ranks 0 and 1 get the pair; the others take part and get undefined.
   */
  static async start(mpi, maxSize, window) {
    const job = mpi.job;
    const connections = await startConnections(job.ia, job.runtime, { keyPrefix: 'osu-dat' });
    if (job.rank > 1) {
      await connections.close();
      return undefined;
    }
    const peer = 1 - job.rank;
    const pz = connections.pz;
    const buf = new Uint8Array(Math.max(maxSize, 16));
    const capabilities = job.ia.query().capabilities;
    const rights = (capabilities.includes('rdma-write') ? MemAccess.REMOTE_WRITE : 0) | (capabilities.includes('rdma-read') ? MemAccess.REMOTE_READ : 0);
    const lmr = pz.registerLmr(buf, MemAccess.LOCAL | rights);
    const ep = await connections.endpoint(peer);
    const pair = new DatPair(connections, ep, lmr, job.rank, 2 * window + 2, () => mpi.wtime());
    pair.#immediate = capabilities.includes('rdma-write-immediate');
    pair.#pollMs = job.ia.query().dequeuePollUs / 1000;
    await pair.#sync();
    if (rights !== 0) await pair.#exchangeWindows(pz, rights);
    return pair;
  }

  #recvs = 0;
  /** How long a wait for a completion spins on dequeue (ms); 0 where dequeue does not poll the provider. */
  #pollMs = 0;
  /** The peer's buffer, exposed for RDMA write and read as the provider has them (undefined: neither). */
  #remote = undefined;
  #rights = 0;
  #immediate = false;
  #rmr = undefined;
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

  /**
   * The next event on `evd` by spinning on `dequeue()` for the IA's `dequeuePollUs` (where dequeue
   * polls the provider, as a uDAPL latency test polls dat_evd_dequeue), or undefined: then wait.
   */
  #polled(evd) {
    const windowMs = this.#pollMs;
    if (windowMs === 0) return undefined;
    let deadline = -1;
    for (let n = 1; ; n++) {
      const event = evd.dequeue();
      if (event !== undefined) return event;
      if ((n & 63) !== 0) continue;
      const now = performance.now();
      if (deadline < 0) deadline = now + windowMs;
      else if (now >= deadline) return undefined;
    }
  }

  #iov(n) {
    return [{ lmr: this.lmr, offset: 0, length: n }];
  }

  /** The next event on `evd`, which must be a successful DTO completion: polled for, else awaited. */
  async #completion(evd) {
    return checked(this.#polled(evd) ?? (await this.#waited(evd)));
  }

  #waited(evd) {
    return evd.wait({ timeoutMs: 60_000 });
  }

  /** The next completion on the receive EVD (a receive, re-posted, or an immediate). */
  async #received() {
    this.#repost(await this.#completion(this.connections.evds.recv));
  }

  #repost(event) {
    if (event.op === 'recv') this.ep.postRecv(this.whole, this.#recvs++);
  }

  /**
   * Each rank binds its whole buffer with `rights` and sends the triplet to the other, from a
   * buffer of its own: the peer's triplet lands in the receive buffer, maybe before ours has left.
   */
  async #exchangeWindows(pz, rights) {
    this.#rights = rights;
    this.#rmr = pz.createRmr();
    const mine = this.#rmr.bind(this.lmr, 0, this.lmr.length, rights);
    const out = new DataView(new ArrayBuffer(16));
    out.setBigUint64(0, mine.rmrContext);
    out.setFloat64(8, mine.targetOffset);
    const outLmr = pz.registerLmr(new Uint8Array(out.buffer), MemAccess.LOCAL);
    this.ep.postSend([{ lmr: outLmr, offset: 0, length: 16 }], 'window');
    await this.#received();
    await this.#completion(this.connections.evds.request);
    outLmr.free();
    const got = new DataView(this.lmr.bytes.buffer, this.lmr.bytes.byteOffset, 16);
    this.#remote = { rmrContext: got.getBigUint64(0), targetOffset: got.getFloat64(8), length: this.lmr.length };
  }

  /** Whether `streamWrite` can run (the provider has RDMA write with immediate). */
  get writable() {
    return (this.#rights & MemAccess.REMOTE_WRITE) !== 0 && this.#immediate;
  }

  /**
   * `window` RDMA writes (or reads) of `n` bytes into (from) the peer's buffer posted at once, then
   * their completions (the target's, for writes): the one-sided benchmarks' baseline.
   */
  async burst(read, n, window) {
    const iov = this.#iov(n);
    const remote = { ...this.#remote, length: n };
    for (let w = 0; w < window; w++) {
      if (read) this.ep.postRdmaRead(iov, w, remote);
      else this.ep.postRdmaWrite(iov, w, remote);
    }
    for (let w = 0; w < window; w++) await this.#completion(this.connections.evds.request);
  }

  async #sync() {
    this.ep.postSend(this.#iov(0), 'sync', { suppressCompletion: true });
    await this.#received();
  }

  async pingPong(n, iters) {
    const iov = this.#iov(n);
    const quiet = { suppressCompletion: true };
    const evd = this.connections.evds.recv;
    // The receive a message took, posted again once the reply has left: off the round trip's path
    // (the receives posted in advance cover the next message). A completion found by polling is
    // taken with no await, as in a uDAPL program's dat_evd_dequeue loop.
    let taken;
    for (let i = 0; i < iters; i++) {
      if (this.rank === 1) taken = checked(this.#polled(evd) ?? (await this.#waited(evd)));
      this.ep.postSend(iov, i, quiet);
      if (taken !== undefined) this.#repost(taken);
      taken = undefined;
      if (this.rank === 0) taken = checked(this.#polled(evd) ?? (await this.#waited(evd)));
    }
    if (taken !== undefined) this.#repost(taken);
  }

  stream(n, iters, window, skip) {
    return this.#oneWay(iters, window, skip, this.#sends(n));
  }

  /** Posts one `n`-byte send of a stream (the window's `w`-th). */
  #sends(n) {
    const iov = this.#iov(n);
    return (w) => this.ep.postSend(iov, w, { suppressCompletion: true });
  }

  /**
   * `stream` by RDMA write with immediate into the peer's exposed buffer (the receiver counts the
   * immediates; no receive is consumed): the transfer MPI's receiver-initiated rendezvous makes,
   * without MPI. Its time against `stream`'s tells the provider's write path from MPI's own cost.
   */
  streamWrite(n, iters, window, skip) {
    if (!this.writable) throw new Error('DAT baseline: the provider has no RDMA write with immediate');
    const iov = this.#iov(n);
    const remote = this.#remote;
    return this.#oneWay(iters, window, skip, (w) => this.ep.postRdmaWrite(iov, w, remote, { immediate: w, suppressCompletion: true }));
  }

  /** osu_bw's loop: `#window` `skip + iters` times, the last `iters` timed. */
  #oneWay(iters, window, skip, post) {
    return skipping(this.clock, skip, iters, () => this.#window(window, post, unmarked));
  }

  /** One window of osu_bw: rank 0 makes `post(w)` for each of it, rank 1 takes the window's completions and acknowledges. */
  async #window(window, post, mark) {
    if (this.rank === 0) {
      mark('posting');
      for (let w = 0; w < window; w++) post(w);
      mark('posted');
      await this.#received();
      mark('acknowledged');
    } else {
      for (let w = 0; w < window; w++) await this.#received();
      mark('last');
      this.ep.postSend(this.#iov(0), 'ack', { suppressCompletion: true });
      mark('acknowledging');
    }
  }

  /**
   * One window of `stream`, calling `mark(point)` where bench/window-timeline.mjs times it: rank 0
   * 'posting', 'posted' and 'acknowledged'; rank 1 'last' (every message seen) and 'acknowledging'
   * (its acknowledgement posted). DAT's receives are posted in advance: rank 1 has no 'receiving'.
   */
  markedWindow(n, window, mark) {
    return this.#window(window, this.#sends(n), mark);
  }

  bistream(n, iters, window, skip) {
    const iov = this.#iov(n);
    return skipping(this.clock, skip, iters, async () => {
      for (let w = 0; w < window; w++) this.ep.postSend(iov, w, { suppressCompletion: true });
      for (let w = 0; w < window; w++) await this.#received();
    });
  }

  async close() {
    this.#rmr?.unbind();
    await this.connections.close();
  }
}

/** A window nobody times. */
function unmarked() {}

/** `event`, which must be a successful DTO completion. */
function checked(event) {
  if (event.type !== 'dto-completion' || event.status !== DtoStatus.SUCCESS) throw new Error(`DAT baseline: ${event.type} ${event.status}`);
  return event;
}
