import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { BoundPsp } from './bound-psp.js';
import type { EvdQueue } from './evd-queue.js';
import type { IaBase } from './ia-base.js';
import type { PspBase } from './psp-base.js';

/** Why an in-process connect fails before any connection request is raised. */
export interface ConnectRefusal {
  readonly type: 'connection-unreachable' | 'connection-non-peer-rejected';
  readonly reason: string;
}

/** The listeners of an in-process fabric (the loopback's, a simulated one's), by address and conn-qual. */
export class ListenerTable<I extends IaBase> {
  private readonly byKey = new Map<string, BoundPsp<I>>();

  /** The listener bound to `address` / `connQual`, or undefined. */
  get(address: string, connQual: number): BoundPsp<I> | undefined {
    return this.byKey.get(`${address}#${connQual}`);
  }

  /** The live listener a connect to `address` / `connQual` reaches, or why it is refused (`iaExists`: an IA has that address). */
  route(address: string, connQual: number, iaExists: boolean): BoundPsp<I> | ConnectRefusal {
    if (!iaExists) return { type: 'connection-unreachable', reason: `no IA at ${address}` };
    const psp = this.get(address, connQual);
    if (psp === undefined || psp.freed) return { type: 'connection-non-peer-rejected', reason: `nothing listens at ${address} conn-qual ${connQual}` };
    return psp;
  }

  /**
   * A listener of `ia` on `connQual`, or on the first free one `nextAny` yields when undefined.
   * A taken `connQual` is CONN_QUAL_IN_USE; the EVD reference a refused listener took is released.
   */
  listen(ia: I, connQual: number | undefined, evd: EvdQueue, nextAny: () => number): BoundPsp<I> {
    if (connQual === undefined) {
      for (;;) {
        const psp = new BoundPsp(ia, nextAny(), evd, this);
        if (this.bind(psp)) return psp;
        evd.release();
      }
    }
    const psp = new BoundPsp(ia, connQual, evd, this);
    if (!this.bind(psp)) {
      evd.release();
      throw new DatError(DatStatus.CONN_QUAL_IN_USE, `conn-qual ${connQual} is already in use on ${ia.address}`, { argument: 'connQual' });
    }
    return psp;
  }

  /** Remove `psp`'s binding, if it is still the one bound to its address and conn-qual. */
  unbind(psp: PspBase): void {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.byKey.get(key) === psp) this.byKey.delete(key);
  }

  private bind(psp: BoundPsp<I>): boolean {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, psp);
    return true;
  }
}
