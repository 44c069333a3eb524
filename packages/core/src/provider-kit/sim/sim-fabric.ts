import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { ParameterSpec } from '../../dat/provider.js';
import type { SimKernel } from '../../sim/sim-kernel.js';
import { ListenerTable } from '../listener-table.js';
import { PER_IA_PARAMETER_NAMES, type SimParameters } from './sim-parameters.js';
import type { SimIa } from './sim-ia.js';

/**
 * The bookkeeping every simulated fabric shares: the kernel, the parameters all its IAs agree on,
 * node numbers, and the IAs and listeners by address. A provider's fabric extends it with the
 * resources its data path books (buses, adapters, the network model). One per provider object,
 * so tests stay isolated.
 */
export class SimFabric<P extends SimParameters = SimParameters> {
  private readonly fabricParameterNames: readonly string[];
  private readonly usedNodes = new Set<number>();
  private readonly ias = new Map<string, SimIa>();
  readonly listeners = new ListenerTable<SimIa>();

  constructor(
    readonly kernel: SimKernel,
    readonly params: P,
    /** The provider's parameter prefix (`ib` in `ib.maxNodes`), for error messages. */
    private readonly prefix: string,
    specs: readonly ParameterSpec[],
  ) {
    this.fabricParameterNames = specs.map((s) => s.name).filter((n) => !PER_IA_PARAMETER_NAMES.includes(n));
  }

  /** Refuse an IA whose model parameters differ from the fabric's (one fabric, one hardware model). */
  checkSameModel(params: P): void {
    for (const name of this.fabricParameterNames) {
      const mine = (this.params as unknown as Record<string, unknown>)[name];
      const theirs = (params as unknown as Record<string, unknown>)[name];
      if (mine !== theirs) {
        const argument = `${this.prefix}.${name}`;
        throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be ${String(mine)} like the other IAs of this fabric, got ${String(theirs)}`, { argument });
      }
    }
  }

  /** A free node: `preferred` when it is free and in range, else the lowest free one. Nodes are never reused. */
  allocateNode(preferred?: number): number {
    const max = this.params.maxNodes;
    let node = preferred !== undefined && preferred < max && !this.usedNodes.has(preferred) ? preferred : 0;
    while (node < max && this.usedNodes.has(node)) node++;
    if (node >= max) {
      const argument = `${this.prefix}.maxNodes`;
      throw new DatError(DatStatus.INSUFFICIENT_RESOURCES, `the fabric holds at most ${max} nodes (${argument})`, { argument });
    }
    this.usedNodes.add(node);
    return node;
  }

  /** Make `ia` reachable at its address. */
  attach(ia: SimIa): void {
    this.ias.set(ia.address, ia);
  }

  /** Make `ia` unreachable (it closed or crashed). */
  detach(ia: SimIa): void {
    this.ias.delete(ia.address);
  }

  /** The IA attached at `address`, or undefined. */
  ia(address: string): SimIa | undefined {
    return this.ias.get(address);
  }
}
