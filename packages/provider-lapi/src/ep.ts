import type { DatStatus } from '@dapl/core';
import { SimEndpoint, type DtoRequest } from '@dapl/core/provider-kit';
import type { LapiFabric } from './fabric.js';
import type { LapiIa } from './ia.js';
import { LapiDataPath } from './progress.js';

/**
 * A DAT endpoint over LAPI: a connection is a pair of tasks that address each other. The kit owns
 * argument checks, queues, completions and the modelled legs of connection set-up; posting charges
 * a LAPI call; the data path (progress.ts) models each DTO's time as LAPI Amsend / Put / Get.
 */
export class LapiEndpoint extends SimEndpoint {
  declare readonly ia: LapiIa;
  declare peer: LapiEndpoint | undefined;
  protected readonly path: LapiDataPath;

  constructor(...args: ConstructorParameters<typeof SimEndpoint>) {
    super(...args);
    this.path = new LapiDataPath(this);
  }

  override get fabric(): LapiFabric {
    return this.ia.fabric;
  }

  protected postCostNs(_request: DtoRequest): number {
    return this.fabric.params.lapiCallNs;
  }

  /** An active-messages failure this endpoint's side found: an `async-error` on its connect EVD. */
  asyncError(status: DatStatus, message: string): void {
    this.evds.connect.push({ type: 'async-error', status, message, ep: this });
  }
}
