import { SimEndpoint, type DtoRequest } from '@dapl/core/provider-kit';
import type { IbFabric } from './fabric.js';
import type { IbIa } from './ia.js';
import { IbDataPath } from './progress.js';

/**
 * An RC queue pair. The kit owns argument checks, queues, completions and the modelled CM legs of
 * connection set-up; posting charges the WQE and doorbell; the data path (progress.ts) models each
 * DTO's time.
 */
export class IbEndpoint extends SimEndpoint {
  declare readonly ia: IbIa;
  declare peer: IbEndpoint | undefined;
  protected readonly path: IbDataPath;

  constructor(...args: ConstructorParameters<typeof SimEndpoint>) {
    super(...args);
    this.path = new IbDataPath(this);
  }

  override get fabric(): IbFabric {
    return this.ia.fabric;
  }

  protected postCostNs(_request: DtoRequest): number {
    return this.fabric.params.postOverheadNs;
  }
}
