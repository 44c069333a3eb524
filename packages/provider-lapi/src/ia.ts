import { timingSafeEqual } from 'node:crypto';
import { DatError, DatStatus, type EndpointAttributes, type EvdOptions, type SimClock } from '@dapl/core';
import { IaBase, type EvdQueue, type IaBaseInit, type KitEvds, type KitPz, type PspBase } from '@dapl/core/provider-kit';
import { LapiActiveMessages } from './active-messages.js';
import { LapiEndpoint } from './ep.js';
import { EvdWaits } from './evd-waits.js';
import type { LapiFabric } from './fabric.js';
import { LapiPsp } from './psp.js';

const FIRST_ANY_CONN_QUAL = 1024;
const ADDRESS = /^lapi:[0-9]{1,5}$/;

/** One LAPI task of the simulated SP: node `node`, address `lapi:<node>`. */
export class LapiIa extends IaBase {
  private nextAnyConnQual = FIRST_ANY_CONN_QUAL;
  /** Declares this IA's EVD waits to the kernel when it belongs to a rank of `kernel.run`. */
  private readonly evdWaits: EvdWaits | undefined;
  /** The `active-messages` extension (handlers, counters); peers' messages reach it through the endpoint. */
  readonly am: LapiActiveMessages;

  constructor(
    init: IaBaseInit,
    readonly fabric: LapiFabric,
    readonly node: number,
    /** The virtual clock of the rank (or node) that owns this IA: LAPI calls charge it. */
    readonly clock: SimClock,
    private readonly jobKey: Uint8Array,
    /** The rank of `kernel.run` that opened this IA (its runtime's clock is the kernel's); undefined when driven directly. */
    readonly rank?: number,
  ) {
    const am = new LapiActiveMessages(fabric, { kernel: fabric.kernel, rank, address: init.address, timeoutMs: fabric.params.connectTimeoutMs, node, clock });
    super({ ...init, extensions: { ...init.extensions, 'active-messages': am } });
    this.am = am;
    this.evdWaits = rank === undefined ? undefined : new EvdWaits(fabric.kernel, rank, this.address);
    fabric.attach(this);
  }

  override createEvd(options?: EvdOptions): EvdQueue {
    const evd = super.createEvd(options);
    this.evdWaits?.declare(evd);
    return evd;
  }

  sameJobAs(other: LapiIa): boolean {
    return this.jobKey.length === other.jobKey.length && timingSafeEqual(this.jobKey, other.jobKey);
  }

  override validateAddress(address: string): void {
    if (!ADDRESS.test(address)) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must look like lapi:<task> (task 0..99999), got ${JSON.stringify(address.slice(0, 80))}`, { argument: 'address' });
    }
  }

  protected async listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase> {
    this.evdWaits?.addRole(evd, 'connection-request');
    if (connQual === undefined) {
      for (;;) {
        const psp = new LapiPsp(this, this.nextAnyConnQual++, evd);
        if (this.fabric.bind(psp)) return psp;
        evd.release();
      }
    }
    const psp = new LapiPsp(this, connQual, evd);
    if (!this.fabric.bind(psp)) {
      evd.release();
      throw new DatError(DatStatus.CONN_QUAL_IN_USE, `conn-qual ${connQual} is already in use on ${this.address}`, { argument: 'connQual' });
    }
    return psp;
  }

  protected newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): LapiEndpoint {
    if (this.evdWaits !== undefined) for (const role of ['recv', 'request', 'connect'] as const) this.evdWaits.addRole(evds[role], role);
    return new LapiEndpoint(this, pz, evds, attributes);
  }

  /** Vanish as a killed process would: peers see `connection-broken`, nothing here raises events. */
  async crash(): Promise<void> {
    for (const ep of this.liveEndpoints()) (ep as LapiEndpoint).crash();
    await this.close();
  }

  protected async shutdown(): Promise<void> {
    this.fabric.detach(this);
  }
}
