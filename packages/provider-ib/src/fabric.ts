import { SimNetwork, type SimKernel } from '@dapl/core';
import { SimFabric } from '@dapl/core/provider-kit';
import { IB_PARAMETERS, type IbParameters } from './params.js';

/**
 * The simulated subnet of one provider object: the kit's fabric (the IAs by address `ib:<lid>`,
 * listeners, nodes) with the network model and each node's PCI-X bus.
 */
export class IbFabric extends SimFabric<IbParameters> {
  readonly network: SimNetwork;
  /** Per node: when its PCI-X bus is free again, ns. */
  private readonly busFree: Float64Array;

  constructor(kernel: SimKernel, params: IbParameters) {
    super(kernel, params, 'ib', IB_PARAMETERS);
    this.network = new SimNetwork(kernel, {
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
