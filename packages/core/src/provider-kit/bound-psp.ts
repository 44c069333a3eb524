import type { EvdQueue } from './evd-queue.js';
import type { IaBase } from './ia-base.js';
import { PspBase } from './psp-base.js';

/** A listener bound in an in-process fabric's listener table: freeing it unbinds it. */
export class BoundPsp<I extends IaBase = IaBase> extends PspBase {
  constructor(
    override readonly ia: I,
    connQual: number,
    evd: EvdQueue,
    private readonly table: { unbind(psp: PspBase): void },
  ) {
    super(ia, connQual, evd);
  }

  /** Leave the listener table, so connects to this conn-qual are refused. */
  protected onFree(): void {
    this.table.unbind(this);
  }
}
