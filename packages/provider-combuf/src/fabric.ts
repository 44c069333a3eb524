import { Crossbar2D, DatError, DatStatus, SimNetwork, type SimKernel } from '@dapl/core';
import { SimFabric } from '@dapl/core/provider-kit';
import { HwRendezvous } from './hw-rendezvous.js';
import { COMBUF_PARAMETERS, type CombufParameters } from './params.js';

/** Bytes of the message the 4.7 µs figure is for (Tatebe et al. §5.1 is Table 1's 8-byte transfer). */
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
 * The simulated SR8000 of one provider object: the kit's fabric (the IAs by address `combuf:<node>`,
 * listeners, nodes) with the crossbar network (nodes on an X×Y grid, X = min(crossbarWidth, maxNodes))
 * and the hardware collectives' meeting point.
 */
export class CombufFabric extends SimFabric<CombufParameters> {
  readonly network: SimNetwork;
  readonly crossbar: Crossbar2D;
  /** Where the members of a hardware barrier or broadcast meet (one serialized crossbar per machine). */
  readonly collectives: HwRendezvous;

  constructor(kernel: SimKernel, params: CombufParameters) {
    super(kernel, params, 'combuf', COMBUF_PARAMETERS);
    const nic = nicOverheadNs(params);
    const x = Math.min(params.crossbarWidth, params.maxNodes);
    this.crossbar = new Crossbar2D(x, Math.ceil(params.maxNodes / x));
    this.network = new SimNetwork(kernel, {
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
}
