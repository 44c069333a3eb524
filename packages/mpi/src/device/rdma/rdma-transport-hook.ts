import { DtoStatus, MemAccess, type Connections, type DtoCompletionEvent, type Endpoint, type PinnedRegistration, type RegistrationCache, type RmrTriplet } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { ExposedMemory, RdmaDone, RdmaTransport } from '../rdma-transport.js';

/**
 * One RDMA write or read posted for one-sided communication (in chunks up to the provider's RDMA
 * limit): the cookie of its posts, so that the device hands its completions back here.
 */
export class RdmaTransportPost {
  #chunksLeft = 0;
  #error: MpiError | undefined;

  constructor(
    readonly peer: number,
    readonly registration: PinnedRegistration,
    readonly cache: RegistrationCache,
    readonly done: RdmaDone,
  ) {}

  started(chunks: number): void {
    this.#chunksLeft = chunks;
  }

  /** A completion of one of its chunks (called by the device's request-EVD handler). */
  completed(event: DtoCompletionEvent): void {
    if (event.status !== DtoStatus.SUCCESS && this.#error === undefined) {
      // The target's RMR refused the access (its bounds or rights): the caller's range error, not a lost peer.
      const errorClass = event.status === DtoStatus.REMOTE_ACCESS ? ErrorClass.ERR_RMA_RANGE : ErrorClass.ERR_PROC_FAILED;
      this.#error = new MpiError(errorClass, `one-sided ${event.op} with rank ${this.peer} failed: ${event.status}${event.reason === undefined ? '' : ` (${event.reason})`}`);
    }
    if (--this.#chunksLeft > 0) return;
    this.cache.unpin(this.registration);
    this.done(this.#error);
  }
}

/**
 * The rdma device's `RdmaTransport`: posts on the endpoints the device's messages use, local
 * memory through the device's registration cache, completions through the device's request EVD
 * (which passes `RdmaTransportPost` cookies here).
 */
export class RdmaTransportHook implements RdmaTransport {
  readonly #endpoints: (Endpoint | undefined)[] = [];

  constructor(
    private readonly connections: Connections,
    private readonly cache: RegistrationCache,
    readonly canRead: boolean,
    private readonly chunk: number,
  ) {}

  expose(bytes: Uint8Array): ExposedMemory {
    const pz = this.connections.pz;
    // Its own registration, outside the cache: an RMR keeps its LMR, which the cache must never evict.
    const lmr = pz.registerLmr(bytes.length === 0 ? new Uint8Array(1) : bytes, MemAccess.ALL);
    const rmr = pz.createRmr();
    const triplet = rmr.bind(lmr, 0, bytes.length, MemAccess.REMOTE);
    return {
      triplet,
      close: () => {
        rmr.free();
        lmr.free();
      },
    };
  }

  write(peer: number, bytes: Uint8Array, remote: RmrTriplet, done: RdmaDone): void {
    this.#post(peer, bytes, remote, done, false);
  }

  /** Writes go on the endpoint the device's messages to `peer` use, once it is connected. */
  writesPrecedeMessages(peer: number): boolean {
    return this.#endpoints[peer] !== undefined;
  }

  read(peer: number, bytes: Uint8Array, remote: RmrTriplet, done: RdmaDone): void {
    this.#post(peer, bytes, remote, done, true);
  }

  #post(peer: number, bytes: Uint8Array, remote: RmrTriplet, done: RdmaDone, read: boolean): void {
    const ep = this.#endpoints[peer];
    if (ep === undefined) {
      this.connections.endpoint(peer).then(
        (connected) => {
          this.#endpoints[peer] = connected;
          this.#post(peer, bytes, remote, done, read);
        },
        (error: unknown) => done(new MpiError(ErrorClass.ERR_PROC_FAILED, `cannot connect to rank ${peer}: ${String(error)}`, { cause: error })),
      );
      return;
    }
    const registration = this.cache.pin(bytes);
    const post = new RdmaTransportPost(peer, registration, this.cache, done);
    const length = bytes.length;
    const chunks = Math.max(1, Math.ceil(length / this.chunk));
    post.started(chunks);
    try {
      for (let i = 0; i < chunks; i++) {
        const at = i * this.chunk;
        const n = Math.min(this.chunk, length - at);
        const local = [{ lmr: registration.lmr, offset: bytes.byteOffset + at, length: n }];
        const target = { rmrContext: remote.rmrContext, targetOffset: remote.targetOffset + at, length: n };
        if (read) ep.postRdmaRead(local, post, target);
        else ep.postRdmaWrite(local, post, target);
      }
    } catch (error) {
      // A post refused at once (the endpoint broke): nothing of it completes later.
      this.cache.unpin(registration);
      done(new MpiError(ErrorClass.ERR_PROC_FAILED, `one-sided transfer with rank ${peer} could not be posted: ${String(error)}`, { cause: error }));
    }
  }
}
