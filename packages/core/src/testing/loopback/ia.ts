import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { EndpointAttributes } from '../../dat/endpoint.js';
import { constantTimeEqual, IaBase, type EvdQueue, type IaBaseInit, type KitEvds, type KitPz, type PspBase } from '../../provider-kit/index.js';
import { LoopbackEndpoint } from './ep.js';
import type { LoopbackFabric } from './fabric.js';

const FIRST_ANY_CONN_QUAL = 1024;

export class LoopbackIa extends IaBase {
  private nextAnyConnQual = FIRST_ANY_CONN_QUAL;

  constructor(
    init: IaBaseInit,
    readonly fabric: LoopbackFabric,
    private readonly jobKey: Uint8Array,
  ) {
    super(init);
    fabric.attach(this);
  }

  sameJobAs(other: LoopbackIa): boolean {
    return constantTimeEqual(this.jobKey, other.jobKey);
  }

  override validateAddress(address: string): void {
    if (!address.startsWith('loop:')) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must look like loop:<n>, got ${JSON.stringify(address)}`, { argument: 'address' });
    }
  }

  protected async listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase> {
    return this.fabric.listeners.listen(this, connQual, evd, () => this.nextAnyConnQual++);
  }

  protected newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): LoopbackEndpoint {
    return new LoopbackEndpoint(this, pz, evds, attributes);
  }

  /** Vanish as a killed process would: peers see `connection-broken`, nothing here raises events. */
  async crash(): Promise<void> {
    for (const ep of this.liveEndpoints()) (ep as LoopbackEndpoint).crash();
    await this.close();
  }

  protected async shutdown(): Promise<void> {
    this.fabric.detach(this);
  }

}
