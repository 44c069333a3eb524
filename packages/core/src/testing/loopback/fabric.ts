import { ListenerTable } from '../../provider-kit/index.js';
import type { LoopbackIa } from './ia.js';

/**
 * The wire of the loopback provider: the IAs opened from one provider instance and their
 * listeners. One fabric per provider object (not a module global), so tests stay isolated.
 */
export class LoopbackFabric {
  private nextIa = 0;
  private readonly ias = new Map<string, LoopbackIa>();
  readonly listeners = new ListenerTable<LoopbackIa>();

  allocateAddress(): string {
    return `loop:${this.nextIa++}`;
  }

  attach(ia: LoopbackIa): void {
    this.ias.set(ia.address, ia);
  }

  detach(ia: LoopbackIa): void {
    this.ias.delete(ia.address);
  }

  knows(address: string): boolean {
    return this.ias.has(address);
  }
}
