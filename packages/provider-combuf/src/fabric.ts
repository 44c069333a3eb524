import { Crossbar2D, DatError, DatStatus, NetworkModel, type SimKernel } from '@dapl/core';
import { HwRendezvous } from './hw-rendezvous.js';
import type { CombufIa } from './ia.js';
import type { CombufPsp } from './psp.js';
import { FABRIC_PARAMETER_NAMES, type CombufParameters } from './params.js';

/** Bytes of the message the 4.7 µs figure is for (001:284 is Table 1's 8-byte transfer). */
export const LATENCY_REFERENCE_BYTES = 8;

/**
 * The NIA's per-message cost at each end, ns: what is left of `tcwReusedLatencyNs` after the kick,
 * the wire time of an 8-byte packet, the cable and one crossbar, split evenly between the sending
 * and the receiving NIA. Throws when the parts already exceed the whole.
 */
export function nicOverheadNs(p: CombufParameters): number {
  const wire = (LATENCY_REFERENCE_BYTES + p.packetHeaderBytes) / p.linkBytesPerNs;
  const rest = p.tcwReusedLatencyNs - p.kickOverheadNs - wire - p.linkLatencyNs - p.crossbarHopNs;
  if (rest < 0) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `combuf.tcwReusedLatencyNs must be at least kickOverheadNs + 8-byte wire time + linkLatencyNs + crossbarHopNs = ${p.tcwReusedLatencyNs - rest} ns, got ${p.tcwReusedLatencyNs}`,
      { argument: 'combuf.tcwReusedLatencyNs' },
    );
  }
  return rest / 2;
}

/**
 * The simulated SR8000 of one provider object: the kernel, the crossbar network (nodes on an X×Y
 * grid, X = min(crossbarWidth, maxNodes)), and the IAs (by address `combuf:<node>`) and listeners.
 * Per provider object, so tests stay isolated.
 */
export class CombufFabric {
  readonly network: NetworkModel;
  readonly crossbar: Crossbar2D;
  /** Where the members of a hardware barrier or broadcast meet (one serialized crossbar per machine). */
  readonly collectives: HwRendezvous;
  private readonly usedNodes = new Set<number>();
  private readonly ias = new Map<string, CombufIa>();
  private readonly listeners = new Map<string, CombufPsp>();

  constructor(
    readonly kernel: SimKernel,
    readonly params: CombufParameters,
  ) {
    const nic = nicOverheadNs(params);
    const x = Math.min(params.crossbarWidth, params.maxNodes);
    this.crossbar = new Crossbar2D(x, Math.ceil(params.maxNodes / x));
    this.network = new NetworkModel({
      nodes: params.maxNodes,
      latencyNs: params.linkLatencyNs,
      bytesPerNs: params.linkBytesPerNs,
      packetBytes: params.packetBytes,
      packetOverheadBytes: params.packetHeaderBytes,
      injectOverheadNs: nic,
      ejectOverheadNs: nic,
      topology: this.crossbar.hops,
      perHopNs: params.crossbarHopNs,
    });
    this.collectives = new HwRendezvous(this);
    // Tests drive IAs outside any kernel.run: events must still happen as they await.
    kernel.enableFreeRunning();
  }

  /**
   * When the target NIA's completion notice, sent at `startNs`, reaches the initiator: a header-only
   * message at the network's latency. Not booked on either NIA's queue — it is a few bytes against
   * the data's kilobytes, and booking it would put every reply behind the previous one's notice.
   */
  noticeArrivesAt(from: number, to: number, startNs: number): number {
    const n = this.network;
    return startNs + n.injectOverheadNs + n.serializationNs(0) + n.latencyNs + this.crossbar.hops(from, to) * n.perHopNs + n.ejectOverheadNs;
  }

  /** Refuse an IA whose model parameters differ from the fabric's (one machine, one hardware model). */
  checkSameModel(params: CombufParameters): void {
    for (const name of FABRIC_PARAMETER_NAMES) {
      const mine = (this.params as unknown as Record<string, unknown>)[name];
      const theirs = (params as unknown as Record<string, unknown>)[name];
      if (mine !== theirs) {
        throw new DatError(DatStatus.INVALID_PARAMETER, `combuf.${name} must be ${String(mine)} like the other IAs of this fabric, got ${String(theirs)}`, { argument: `combuf.${name}` });
      }
    }
  }

  /** A free node: `preferred` when it is free and in range, else the lowest free one. Nodes are never reused. */
  allocateNode(preferred?: number): number {
    const max = this.params.maxNodes;
    let node = preferred !== undefined && preferred < max && !this.usedNodes.has(preferred) ? preferred : 0;
    while (node < max && this.usedNodes.has(node)) node++;
    if (node >= max) {
      throw new DatError(DatStatus.INSUFFICIENT_RESOURCES, `the fabric holds at most ${max} nodes (combuf.maxNodes)`, { argument: 'combuf.maxNodes' });
    }
    this.usedNodes.add(node);
    return node;
  }

  attach(ia: CombufIa): void {
    this.ias.set(ia.address, ia);
  }

  detach(ia: CombufIa): void {
    this.ias.delete(ia.address);
  }

  ia(address: string): CombufIa | undefined {
    return this.ias.get(address);
  }

  listener(address: string, connQual: number): CombufPsp | undefined {
    return this.listeners.get(`${address}#${connQual}`);
  }

  bind(psp: CombufPsp): boolean {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.has(key)) return false;
    this.listeners.set(key, psp);
    return true;
  }

  unbind(psp: CombufPsp): void {
    const key = `${psp.ia.address}#${psp.connQual}`;
    if (this.listeners.get(key) === psp) this.listeners.delete(key);
  }
}
