import { SimEndpoint, type DtoRequest } from '@dapl/core/provider-kit';
import type { CombufFabric } from './fabric.js';
import type { CombufIa } from './ia.js';
import { CombufDataPath } from './progress.js';

/**
 * One end of a connection between two nodes' remote DMA areas. The kit owns argument checks,
 * queues, completions and the modelled legs of connection set-up; posting charges the CPU costs
 * of the transfer (kick, TCW creation, send right: ia.ts) and the data path (progress.ts) models
 * each remote DMA's time.
 */
export class CombufEndpoint extends SimEndpoint {
  declare readonly ia: CombufIa;
  declare peer: CombufEndpoint | undefined;
  protected readonly path: CombufDataPath;

  constructor(...args: ConstructorParameters<typeof SimEndpoint>) {
    super(...args);
    this.path = new CombufDataPath(this);
  }

  override get fabric(): CombufFabric {
    return this.ia.fabric;
  }

  protected postCostNs(request: DtoRequest): number {
    return this.ia.transferSetupNs(this, request);
  }
}
