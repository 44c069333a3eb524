import type { Endpoint } from './endpoint.js';
import type { Iov, Lmr, RmrTriplet } from './memory.js';

/**
 * Optional provider extensions, found with `ia.extension(name)`. Upper libraries test for
 * them and fall back when they are absent.
 */
export interface DatExtensions {
  'active-messages': ActiveMessages;
  'hw-collectives': HwCollectives;
  atomics: RemoteAtomics;
  'peer-memory': PeerMemory;
}
/** The name of an optional provider extension, as `ia.extension(name)` takes it. */
export type ExtensionName = keyof DatExtensions;
/** Every extension name core knows. */
export const EXTENSION_NAMES: readonly ExtensionName[] = ['active-messages', 'hw-collectives', 'atomics', 'peer-memory'];

/** A LAPI-style counter: incremented by the provider, waited on by the consumer. */
export interface AmCounter {
  readonly value: number;
  /** Resolves once the counter reaches `target`, then subtracts `target` (LAPI_Waitcntr). */
  wait(target: number): Promise<void>;
  /** Overwrite the count (LAPI_Setcntr), typically to 0 before reuse. */
  set(value: number): void;
}

/** The counters an `amsend` may update: the origin's, the completion's, and the target's by id. */
export interface AmCounters {
  /** Incremented at the origin when the origin buffer may be reused. */
  readonly origin?: AmCounter;
  /** Incremented at the origin when the completion handler at the target has run. */
  readonly completion?: AmCounter;
  /** Target-side counter id, incremented at the target when the data has arrived. */
  readonly target?: number;
}

/** What a header handler returns: where the data goes, and what runs after it landed. */
export interface AmPlacement {
  /** Where the message's data lands, registered at the target. */
  readonly iov: Iov;
  /** Runs once the data has landed, with the user header and the source rank. */
  readonly completion?: (uhdr: Uint8Array, source: number) => void;
  /** Run the completion handler in the dispatcher's context (Banikazemi et al. §5.3), with no thread switch. */
  readonly inContext?: boolean;
  /**
   * A predefined completion (Banikazemi et al. §5.3: completion handlers built into LAPI, which only
   * mark the message done): run in the dispatcher's context as the data lands, with no thread switch
   * and no user handler to pay for. For completions that only record that the data is in place; one
   * that must act (send, say) is a `completion` handler.
   */
  readonly signal?: () => void;
}

/** A header handler: runs at the target when an active message's header arrives and says where its data goes (or undefined to drop it). */
export type AmHeaderHandler = (uhdr: Uint8Array, dataLength: number, source: number) => AmPlacement | undefined;

/** LAPI's active messages, one-sided operations and counters (the MPI-LAPI paper (Banikazemi et al.) and the MPI-2 one-sided patent (US 7,694,310)). */
export interface ActiveMessages {
  /**
   * Register the header handler `id` that `amsend` names; a second registration replaces the first.
   * @throws DatError INVALID_PARAMETER for a bad id or a handler that is not a function.
   */
  registerHandler(id: number, handler: AmHeaderHandler): void;
  /**
   * A new counter: an origin or completion counter without `id`, or the target counter `id` that
   * peers name in `AmCounters.target`.
   * @throws DatError INVALID_PARAMETER for a bad id or one already in use.
   */
  createCounter(id?: number): AmCounter;
  /**
   * Send an active message on connected `target`: header handler `handler` runs there with `uhdr`
   * and places `data`; `counters` report the stages.
   * @throws DatError INVALID_PARAMETER for a bad handler id, header, iov or counters.
   */
  amsend(target: Endpoint, handler: number, uhdr: Uint8Array, data: Iov, counters?: AmCounters): void;
  /** Write `data` into the peer's exposed memory `remote` (LAPI_Put); `counters` report the stages. */
  put(target: Endpoint, data: Iov, remote: RmrTriplet, counters?: AmCounters): void;
  /** Read the peer's exposed memory `remote` into `into` (LAPI_Get); `counters` report the stages. */
  get(target: Endpoint, into: Iov, remote: RmrTriplet, counters?: AmCounters): void;
  /**
   * Atomic read-modify-write of the 4- or 8-byte word `remote` (LAPI_Rmw); resolves to its previous value.
   * @throws DatError INVALID_PARAMETER for an unknown op or a word that is not 4 or 8 bytes.
   */
  rmw(target: Endpoint, op: 'swap' | 'compare-and-swap' | 'fetch-and-add' | 'fetch-and-or', remote: RmrTriplet, operand: bigint, compare?: bigint): Promise<bigint>;
  /** Resolves when every operation issued to `target` (or to all) has completed at its target. */
  fence(target?: Endpoint): Promise<void>;
}

/** A set of ranks (nodes) taking part in a hardware collective, in group order. */
export type HwGroup = readonly number[];

/** SR8000-style hardware barrier and broadcast (Tatebe et al. §4.2). */
export interface HwCollectives {
  /** Whether the hardware can serve this group (rectangular or hypercube node sets only). */
  usable(group: HwGroup): boolean;
  /** Resolves once every member of `group` has entered the barrier. */
  barrier(group: HwGroup): Promise<void>;
  /**
   * Broadcast `length` bytes at `offset` of `segment`; every member passes the same offset. Where
   * the hardware runs one broadcast at a time (the SR8000's serialized crossbar), one that would
   * overlap another is refused with INVALID_STATE, the same rejection at every member.
   */
  broadcast(group: HwGroup, root: number, segment: Lmr, offset: number, length: number): Promise<void>;
}

/** Remote atomic operations on 8-byte words of exposed memory. */
export interface RemoteAtomics {
  /** Add `add` to the word `remote` on the peer of `ep`; resolves to its previous value. */
  fetchAndAdd(ep: Endpoint, remote: RmrTriplet, add: bigint): Promise<bigint>;
  /** Store `swap` in the word `remote` if it equals `compare`; resolves to its previous value. */
  compareAndSwap(ep: Endpoint, remote: RmrTriplet, compare: bigint, swap: bigint): Promise<bigint>;
}

/** The two regions of one connection's peer memory (see `PeerMemory`). */
export interface PeerRegions {
  /** What this side writes and the peer reads (its `inbound`). */
  readonly outbound: Uint8Array;
  /** What the peer writes and this side reads (its `outbound`). */
  readonly inbound: Uint8Array;
}

/**
 * Memory both ends of a connection reach by load and store, where the ranks share memory (uDAPL's
 * DAT_MEM_TYPE_SHARED_VIRTUAL, given per connection): a consumer lays out its own queues in it, as
 * MPICH nemesis lays its fastboxes in a shared segment, and the provider's progress polls them with
 * its own. Both regions are SharedArrayBuffer views, zeroed when the connection is made; ordering
 * between the two sides is the consumer's (Atomics on the words it polls).
 */
export interface PeerMemory {
  /** Bytes of each region. */
  readonly bytes: number;
  /**
   * The regions of `ep`'s connection, once the provider has joined the two sides (undefined before
   * that, and for an endpoint that has none); they stay valid while the endpoint lives.
   * @throws DatError INVALID_HANDLE for an endpoint that is not of this IA.
   */
  regions(ep: Endpoint): PeerRegions | undefined;
  /** The peer of `ep` should look at its inbound region: wakes its progress if that sleeps (otherwise it costs one load). */
  notify(ep: Endpoint): void;
  /**
   * Call `poll` each time this IA's progress polls its connections, in its polling window and when
   * a `notify` wakes it; true from `poll` counts as activity (the window starts again). It runs
   * inside the provider's poll: it may read and write peer memory, and defers anything else
   * (posts, completions). Returns the function that removes it.
   * @throws DatError INVALID_PARAMETER when `poll` is not a function.
   */
  addPoller(poll: () => boolean): () => void;
}
