import type { EndpointAttributes } from '../../dat/endpoint.js';
import type { EvdOptions } from '../../dat/evd.js';
import type { SimClock } from '../../sim/sim-clock.js';
import type { KitEvds } from '../endpoint-base.js';
import type { EvdQueue } from '../evd-queue.js';
import { constantTimeEqual } from '../bytes.js';
import { IaBase, type IaBaseInit } from '../ia-base.js';
import type { KitPz } from '../memory.js';
import type { PspBase } from '../psp-base.js';
import { EvdWaits } from './evd-waits.js';
import type { SimEndpoint } from './sim-endpoint.js';
import type { SimFabric } from './sim-fabric.js';

const FIRST_ANY_CONN_QUAL = 1024;

/** Where an IA sits in its simulated fabric, and whose time it spends. */
export interface SimIaPlace<F extends SimFabric = SimFabric> {
  readonly fabric: F;
  readonly node: number;
  /** The virtual clock of the rank (or node) that owns the IA: posts and registrations charge it. */
  readonly clock: SimClock;
  readonly jobKey: Uint8Array;
  /** The rank of `kernel.run` that opened the IA (its runtime's clock is the kernel's); undefined when driven directly. */
  readonly rank?: number;
}

/**
 * One node's adapter in a simulated fabric: listeners bound in the fabric, endpoints of the
 * provider's kind, the job-key check, and EVD waits declared to the kernel so that a deadlock
 * report names them. A provider adds its endpoint, its address form and its own costs.
 */
export abstract class SimIa extends IaBase {
  readonly fabric: SimFabric;
  readonly node: number;
  readonly clock: SimClock;
  readonly rank: number | undefined;
  private readonly jobKey: Uint8Array;
  private nextAnyConnQual = FIRST_ANY_CONN_QUAL;
  /** Declares this IA's EVD waits to the kernel when it belongs to a rank of `kernel.run`. */
  private readonly evdWaits: EvdWaits | undefined;

  constructor(init: IaBaseInit, place: SimIaPlace) {
    super(init);
    this.fabric = place.fabric;
    this.node = place.node;
    this.clock = place.clock;
    this.rank = place.rank;
    this.jobKey = place.jobKey;
    this.evdWaits = place.rank === undefined ? undefined : new EvdWaits(place.fabric.kernel, place.rank, this.address);
    place.fabric.attach(this);
  }

  /** A new endpoint of the provider's kind. */
  protected abstract createEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): SimEndpoint;

  /** As the kit's, with the EVD's waits declared to the kernel (for deadlock reports). */
  override createEvd(options?: EvdOptions): EvdQueue {
    const evd = super.createEvd(options);
    this.evdWaits?.declare(evd);
    return evd;
  }

  /** Connect timeouts in virtual time: a slow host simulating many ranks must not time out a connection the model made in microseconds. */
  override startTimer(ms: number, action: () => void): () => void {
    return this.clock.after(ms * 1e6, action);
  }

  override recvPostTimeNs(): number {
    return this.clock.nowNs;
  }

  /** Whether `other` holds the same job key (compared in constant time): connections authenticate with it. */
  sameJobAs(other: SimIa): boolean {
    // The ranks of an in-process job share one key object: no compare per connection request.
    return this.jobKey === other.jobKey || constantTimeEqual(this.jobKey, other.jobKey);
  }

  protected async listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase> {
    this.evdWaits?.addRole(evd, 'connection-request');
    return this.fabric.listeners.listen(this, connQual, evd, () => this.nextAnyConnQual++);
  }

  /** Registers the endpoint's EVDs for deadlock reports, then makes the provider's endpoint (`createEndpoint`). */
  protected newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): SimEndpoint {
    if (this.evdWaits !== undefined) for (const role of ['recv', 'request', 'connect'] as const) this.evdWaits.addRole(evds[role], role);
    return this.createEndpoint(pz, evds, attributes);
  }

  /** Vanish as a killed process would: peers see `connection-broken`, nothing here raises events. */
  async crash(): Promise<void> {
    for (const ep of this.liveEndpoints()) (ep as SimEndpoint).crash();
    await this.close();
  }

  protected async shutdown(): Promise<void> {
    this.fabric.detach(this);
  }
}
