import { DtoStatus, RegistrationCache, startConnections, type Connections, type DtoCompletionEvent, type DatEvent, type Endpoint, type EventDispatcher, type InterfaceAdapter, type Lmr, type PinnedRegistration, type ProtectionZone, type Runtime } from '@dapl/core';
import { drainWith, pollEvds } from '../poll-evds.js';
import type { Logger } from 'pino';

/** The KVS key prefix the bulk connections publish their listen addresses under (the job's own use `dapl-ep`). */
export const BULK_KEY_PREFIX = 'dapl-bulk';

/** Our send buffer is the user's again once its bytes have left (tcp: the socket write), as on the channel. */
const LOCAL_COMPLETION = { localCompletion: true } as const;

/** One message on a bulk connection: its DTOs (one per `maxPiece` bytes), pinned memory, and who is told. */
class BulkTransfer {
  left = 0;
  /** Bytes the completions report moved (a receive's: what the sender sent into it). */
  moved = 0;
  error: Error | undefined = undefined;
  constructor(
    readonly pinned: PinnedRegistration | undefined,
    readonly onDone: (error?: Error, moved?: number) => void,
  ) {}
}

/** What the bulk stream needs to open its connections: the job's IA, runtime and zone. */
export interface BulkStreamAttachment {
  readonly ia: InterfaceAdapter;
  readonly runtime: Runtime;
  /** The zone of the job's connections: memory the channel registered serves here too. */
  readonly pz: ProtectionZone;
  readonly logger: Logger;
}

/**
 * The channel device's bulk stream: a second DAT connection per peer that carries nothing but
 * rendezvous data. The receiver posts the user's receive memory (registered in place) as one DAT
 * receive before it sends ready-to-receive; the sender then sends the whole payload as one DAT send
 * from the user's memory, cut only where the provider's largest message requires. No packets, no
 * credits, no copy at either end in the device: the provider moves the bytes between the two user
 * buffers (tcp reads a large payload from the socket straight into the posted receive). Both ends
 * post in ready-to-receive order, so the n-th send to a peer meets the n-th receive from it.
 */
export class BulkStream {
  #connections: Connections | undefined;
  #cache: RegistrationCache | undefined;
  #evds: { readonly recv: EventDispatcher; readonly request: EventDispatcher } | undefined;
  /** The provider's largest message: a longer payload goes as several sends, met by as many receives. */
  #maxPiece = 0;
  #closed = false;
  /** Peers whose connection is up with no post still waiting for it: posts to them go out at once, in call order. */
  readonly #ready: (Endpoint | undefined)[] = [];
  /** Posts waiting for a peer's connection (they go out in call order when it is made). */
  readonly #waiting: number[] = [];
  readonly #inFlight = new Set<BulkTransfer>();
  readonly counts = { bulkSends: 0, bulkReceives: 0, bulkDeclines: 0 };

  constructor(private readonly registrationCache: number) {}

  /** The largest message one bulk send carries whole (one receive meets it). */
  get largestMessage(): number {
    return this.#maxPiece;
  }

  /** Collective (every rank's device attaches together): listen, publish, and connect on first use. */
  async start(a: BulkStreamAttachment): Promise<void> {
    const evds = { recv: a.ia.createEvd(), request: a.ia.createEvd() };
    this.#evds = evds;
    this.#maxPiece = a.ia.query().limits.maxMessageSize;
    this.#cache = new RegistrationCache(a.pz, this.registrationCache);
    this.#connections = await startConnections(a.ia, a.runtime, { pz: a.pz, evds, keyPrefix: BULK_KEY_PREFIX, logger: a.logger });
    evds.recv.setNotify(drainWith(this.#onEvent));
    evds.request.setNotify(drainWith(this.#onEvent));
  }

  /**
   * Post `into` (exactly the message's length) as the receive of the next bulk message from
   * `from`; `onPosted` runs once it is posted (then the sender may be told), `onDone` once the data
   * is in place or the transfer failed, with the bytes the sender sent (0 when it declined, see `decline`).
   */
  receive(from: number, into: Uint8Array, onPosted: () => void, onDone: (error?: Error, moved?: number) => void): void {
    this.counts.bulkReceives++;
    if (into.length === 0) {
      onPosted();
      return onDone();
    }
    this.#withEndpoint(
      from,
      (ep) => {
        const transfer = this.#transfer(into, onDone);
        for (const piece of this.#pieces(into, transfer)) ep.postRecv(piece, transfer);
        onPosted();
      },
      onDone,
    );
  }

  /** Send `bytes` as the next bulk message to `to` (its receiver has posted for it). */
  send(to: number, bytes: Uint8Array, onDone: (error?: Error) => void): void {
    this.counts.bulkSends++;
    if (bytes.length === 0) return onDone();
    this.#withEndpoint(
      to,
      (ep) => {
        const transfer = this.#transfer(bytes, onDone);
        for (const piece of this.#pieces(bytes, transfer)) ep.postSend(piece, transfer, LOCAL_COMPLETION);
      },
      onDone,
    );
  }

  /**
   * Send nothing as the next bulk message to `to`: its receive, posted for a message that will not
   * come this way (an advertised receive the data does not go to), completes with 0 bytes and the
   * stream stays in step.
   */
  decline(to: number): void {
    this.counts.bulkDeclines++;
    this.#withEndpoint(
      to,
      (ep) => {
        const transfer = new BulkTransfer(undefined, () => undefined);
        transfer.left = 1;
        this.#inFlight.add(transfer);
        ep.postSend([], transfer, LOCAL_COMPLETION);
      },
      () => undefined,
    );
  }

  /** Whether posts to `peer` go out at once (its connection is made): only then may a receive be advertised, its post ahead of the packet that tells. */
  connected(peer: number): boolean {
    return this.#ready[peer] !== undefined && !this.#closed;
  }

  /** Make the connection to `peer` if it is not made (posts to it go out at once after). */
  connect(peer: number): void {
    if (this.#ready[peer] === undefined && (this.#waiting[peer] ?? 0) === 0) this.#withEndpoint(peer, () => undefined, () => undefined);
  }

  /** Disconnect the bulk connections and free what the stream made (the zone stays the job's). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const evds = this.#evds;
    for (const evd of evds === undefined ? [] : [evds.recv, evds.request]) if (!evd.freed) evd.setNotify(undefined);
    try {
      await this.#connections?.close();
    } finally {
      this.#cache?.close();
      for (const evd of evds === undefined ? [] : [evds.recv, evds.request]) if (!evd.freed) evd.free();
    }
  }

  /** `use` the endpoint to `peer` now when its connection is made, else once it is, after the posts that waited before. */
  #withEndpoint(peer: number, use: (ep: Endpoint) => void, failed: (error: Error) => void): void {
    const ready = this.#ready[peer];
    if (ready !== undefined && !this.#closed) return use(ready);
    this.#waiting[peer] = (this.#waiting[peer] ?? 0) + 1;
    this.#endpoint(peer).then(
      (ep) => {
        use(ep);
        if (--this.#waiting[peer] === 0) this.#ready[peer] = ep;
      },
      (error: unknown) => {
        this.#waiting[peer]--;
        failed(asError(error));
      },
    );
  }

  #endpoint(peer: number): Promise<Endpoint> {
    if (this.#connections === undefined || this.#closed) return Promise.reject(new Error('the bulk stream is not open'));
    return this.#connections.endpoint(peer);
  }

  #transfer(bytes: Uint8Array, onDone: (error?: Error, moved?: number) => void): BulkTransfer {
    const transfer = new BulkTransfer(this.#cache!.pin(bytes), onDone);
    this.#inFlight.add(transfer);
    return transfer;
  }

  /** The iovs of `bytes` cut at the provider's largest message, counted into `transfer`. */
  #pieces(bytes: Uint8Array, transfer: BulkTransfer): { lmr: Lmr; offset: number; length: number }[][] {
    const pieces = [];
    const lmr = transfer.pinned!.lmr;
    for (let at = 0; at < bytes.length; at += this.#maxPiece) {
      pieces.push([{ lmr, offset: bytes.byteOffset + at, length: Math.min(this.#maxPiece, bytes.length - at) }]);
    }
    transfer.left = pieces.length;
    return pieces;
  }

  /** Both EVDs dequeued now (Device.poll). */
  poll(): void {
    const evds = this.#evds;
    if (evds === undefined) return;
    pollEvds(evds.recv, evds.request, this.#onEvent, this.#onEvent);
  }

  readonly #onEvent = (event: DatEvent): void => {
    if (event.type === 'dto-completion') this.#onCompletion(event);
  };

  #onCompletion(event: DtoCompletionEvent): void {
    const transfer = event.cookie as BulkTransfer;
    if (event.status !== DtoStatus.SUCCESS && transfer.error === undefined) {
      transfer.error = new Error(`bulk ${event.op} completed with ${event.status}${event.reason === undefined ? '' : ` (${event.reason})`}`);
    }
    transfer.moved += event.transferredLength;
    if (--transfer.left > 0) return;
    this.#inFlight.delete(transfer);
    if (transfer.pinned !== undefined) this.#cache!.unpin(transfer.pinned);
    transfer.onDone(transfer.error, transfer.moved);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
