import { DatError, DatStatus, NetworkModel, type SimKernel } from '@dapl/core';
import type { IbIa } from './ia.js';
import type { IbPsp } from './psp.js';
import { FABRIC_PARAMETER_NAMES, type IbParameters } from './params.js';

/**
 * The simulated subnet of one provider object: the kernel, the network model, each node's PCI-X
 * bus, and the IAs (by address `ib:<lid>`) and listeners. Per provider object, so tests stay isolated.
 */
export class IbFabric {
  readonly network: NetworkModel;
  /** Per node: when its PCI-X bus is free again, ns. */
  private readonly busFree: Float64Array;
  private readonly usedNodes = new Set<number>();
  private readonly ias = new Map<string, IbIa>();
  private readonly listeners = new Map<string, IbPsp>();

  constructor(
    readonly kernel: SimKernel,
    readonly params: IbParameters,
  ) {
    this.network = new NetworkModel({
      nodes: params.maxNodes,
      latencyNs: params.linkLatencyNs,
      bytesPerNs: params.linkBytesPerNs,
      packetBytes: params.mtuBytes,
      packetOverheadBytes: params.packetHeaderBytes,
      injectOverheadNs: params.hcaSendOverheadNs,
      ejectOverheadNs: params.hcaRecvOverheadNs,
      perHopNs: params.switchHopNs,
    });
    this.busFree = new Float64Array(params.maxNodes);
    // Tests drive IAs outside any kernel.run: events must still happen as they await.
    kernel.enableFreeRunning();
  }

  /** Refuse an IA whose model parameters differ from the fabric's (one subnet, one hardware model). */
  checkSameModel(params: IbParameters): void {
    for (const name of FABRIC_PARAMETER_NAMES) {
      const mine = (this.params as unknown as Record<string, unknown>)[name];
      const theirs = (params as unknown as Record<string, unknown>)[name];
      if (mine !== theirs) {
        throw new DatError(DatStatus.INVALID_PARAMETER, `ib.${name} must be ${String(mine)} like the other IAs of this fabric, got ${String(theirs)}`, { argument: `ib.${name}` });
      }
    }
  }

  /** A free node: `preferred` when it is free and in range, else the lowest free one. Nodes are never reused. */
  allocateNode(preferred?: number): number {
    const max = this.params.maxNodes;
    let node = preferred !== undefined && preferred < max && !this.usedNodes.has(preferred) ? preferred : 0;
    while (node < max && this.usedNodes.has(node)) node++;
    if (node >= max) {
      throw new DatError(DatStatus.INSUFFICIENT_RESOURCES, `the fabric holds at most ${max} nodes (ib.maxNodes)`, { argument: 'ib.maxNodes' });
    }
    this.usedNodes.add(node);
    return node;
  }

  attach(ia: IbIa): void {
    this.ias.set(ia.address, ia);
  }

  detach(ia: IbIa): void {
    this.ias.delete(ia.address);
  }

  ia(address: string): IbIa | undefined {
    return this.ias.get(address);
  }

  listener(address: string, connQual: number): IbPsp | undefined {
    return this.listeners.get(`${address}#${connQual}`);
  }

  bind(psp: IbPsp): boolean {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.has(key)) return false;
    this.listeners.set(key, psp);
    return true;
  }

  unbind(psp: IbPsp): void {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.get(key) === psp) this.listeners.delete(key);
  }

  /**
   * A DMA read of `bytes` from `node`'s memory, the HCA ready at `startNs`: books the bus; returns
   * when the first packet's worth is in the HCA and when the last byte is.
   */
  dmaRead(node: number, bytes: number, startNs: number): { firstAt: number; doneAt: number } {
    const p = this.params;
    const begin = Math.max(startNs, this.busFree[node]) + p.pciReadLatencyNs;
    const firstAt = begin + Math.min(bytes, p.mtuBytes) / p.pciBytesPerNs;
    const doneAt = begin + bytes / p.pciBytesPerNs;
    this.busFree[node] = doneAt;
    return { firstAt, doneAt };
  }

  /**
   * A DMA write of `bytes` into `node`'s memory as packets come in, the last one in at `arrivedAt`:
   * streams behind the network, queues behind earlier bus work; returns when it (and the
   * completion entry) is in memory.
   */
  dmaWrite(node: number, bytes: number, arrivedAt: number): number {
    const p = this.params;
    const streamed = arrivedAt + Math.min(bytes, p.mtuBytes) / p.pciBytesPerNs;
    const queued = this.busFree[node] + bytes / p.pciBytesPerNs;
    const done = Math.max(streamed, queued);
    this.busFree[node] = done;
    return done + p.pciWriteLatencyNs;
  }
}
