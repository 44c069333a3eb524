import type { LoopbackIa } from './ia.js';
import type { LoopbackPsp } from './psp.js';

/**
 * The wire of the loopback provider: the IAs opened from one provider instance and their
 * listeners. One fabric per provider object (not a module global), so tests stay isolated.
 */
export class LoopbackFabric {
  private nextIa = 0;
  private readonly ias = new Map<string, LoopbackIa>();
  private readonly listeners = new Map<string, LoopbackPsp>();

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

  listener(address: string, connQual: number): LoopbackPsp | undefined {
    return this.listeners.get(`${address}#${connQual}`);
  }

  bind(psp: LoopbackPsp): boolean {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.has(key)) return false;
    this.listeners.set(key, psp);
    return true;
  }

  unbind(psp: LoopbackPsp): void {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.get(key) === psp) this.listeners.delete(key);
  }
}
