import type { DatProvider, DtoCapability } from './provider.js';
import type { ProtectionZone } from './pz.js';
import type { EventDispatcher, EvdOptions } from './evd.js';
import type { PublicServicePoint } from './psp.js';
import type { Endpoint, EndpointCreateAttributes, EndpointEvds } from './endpoint.js';
import type { DatExtensions, ExtensionName } from './extensions.js';
import type { SharedReceiveQueue, SrqOptions } from './srq.js';

/** Hard limits of an IA, checked by every call that could exceed them. */
export interface IaLimits {
  /** Largest send / receive, in bytes. */
  readonly maxMessageSize: number;
  /** Largest RDMA read or write, in bytes. */
  readonly maxRdmaSize: number;
  /** Largest payload carried inline with the request (no DMA read of the payload); 0 if none. */
  readonly maxInline: number;
  /** Most iov entries in one DTO. */
  readonly maxIov: number;
  readonly maxRecvDtos: number;
  readonly maxRequestDtos: number;
  readonly maxEvdQueueDepth: number;
  readonly maxPrivateData: number;
  /** Valid conn-quals are `[min, max]`. */
  readonly connQualRange: readonly [number, number];
}

/** What `InterfaceAdapter.query` reports: identity, address, limits and capabilities. */
export interface IaAttributes {
  readonly provider: string;
  readonly name: string;
  readonly address: string;
  readonly limits: IaLimits;
  readonly capabilities: readonly DtoCapability[];
  /**
   * Whether a send or write posted with `localCompletion` can complete before the target confirms
   * it (tcp: once the kernel has the bytes). False where completion always waits for the target,
   * as on InfiniBand-like hardware.
   */
  readonly localCompletion: boolean;
  /**
   * How long (µs) a consumer waiting for a completion may usefully spin on `evd.dequeue()` before it
   * blocks in `evd.wait()`: where it is above 0, `dequeue()` on an empty queue drives the provider's
   * progress itself, as uDAPL's `dat_evd_dequeue` polls the completion queue, so a peer on another
   * CPU is seen as soon as it writes. 0 where completions reach the queue only from the event loop
   * (sockets) or the simulator's clock, which a spinning consumer would hold up.
   */
  readonly dequeuePollUs: number;
  /** Whether `createSrq` is offered (DAT 2.0 shared receive queues); true on every provider of the kit. */
  readonly sharedReceiveQueues: boolean;
  readonly extensions: readonly ExtensionName[];
  /** The provider parameters in force, by name. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** DI token of the opened IA of the selected provider (async: `getAsync`); closed by `closeContainer`. */
export const InterfaceAdapter: unique symbol = Symbol('InterfaceAdapter');

/** An interface adapter: one opened instance of a provider, the root of all other DAT objects. */
export interface InterfaceAdapter {
  readonly provider: DatProvider;
  readonly name: string;
  /** Opaque; a peer passes it to `ep.connect()`. */
  readonly address: string;
  readonly closed: boolean;
  /**
   * The IA's identity, address, limits and capabilities.
   * @throws DatError INVALID_HANDLE once the IA is closed.
   */
  query(): IaAttributes;
  /**
   * Named counters, for tests and `dapl info`: at least `bufferedBytes` and `peakBufferedBytes`
   * (bytes the provider holds that the consumer has not yet taken) and `connections`.
   */
  counters(): Readonly<Record<string, number>>;
  /**
   * A new protection zone of this IA.
   * @throws DatError INVALID_HANDLE once the IA is closed.
   */
  createPz(): ProtectionZone;
  /**
   * A new event dispatcher (queue of events), `options.queueDepth` deep at most.
   * @throws DatError INVALID_PARAMETER for a depth outside [1, `maxEvdQueueDepth`] or bad options,
   * INVALID_HANDLE once the IA is closed.
   */
  createEvd(options?: EvdOptions): EventDispatcher;
  /** Listen on `connQual`; rejects with CONN_QUAL_IN_USE if taken. */
  createPsp(connQual: number, evd: EventDispatcher): Promise<PublicServicePoint>;
  /** Listen on a conn-qual the provider picks (see `psp.connQual`). */
  createPspAny(evd: EventDispatcher): Promise<PublicServicePoint>;
  /**
   * A new UNCONNECTED endpoint in `pz`, its events going to `evds`; unset attributes take defaults
   * within the IA's limits. `attributes.srq`: the endpoint takes its receives from that shared
   * receive queue (same PZ).
   * @throws DatError INVALID_HANDLE for a zone or EVD of another IA, or once the IA is closed;
   * INVALID_PARAMETER for attributes outside the IA's limits.
   */
  createEp(pz: ProtectionZone, evds: EndpointEvds, attributes?: EndpointCreateAttributes): Endpoint;
  /**
   * A shared receive queue in `pz` (see `SharedReceiveQueue`). NOT_IMPLEMENTED where
   * `query().sharedReceiveQueues` is false.
   */
  createSrq(pz: ProtectionZone, options: SrqOptions): SharedReceiveQueue;
  /** An optional extension, or undefined if this provider does not offer it. */
  extension<K extends ExtensionName>(name: K): DatExtensions[K] | undefined;
  /** Breaks every connection, flushes pending DTOs, releases everything. Idempotent. */
  close(): Promise<void>;
  /**
   * Whether the IA's sockets and listeners alone keep the process running (true, as any Node socket,
   * until told otherwise). An upper library that holds the process itself while it waits (through
   * `Runtime.declareWait`) sets false, so that a program whose code has ended can exit — MPI does,
   * to finalize at exit. Optional: providers without such handles (simulated ones) leave it out.
   */
  keepProcessAlive?(alive: boolean): void;
}
