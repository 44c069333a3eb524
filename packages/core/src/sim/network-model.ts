import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { describe, requireFunction, requireInteger } from '../provider-kit/validate.js';
import { requireFiniteAtLeast, requirePositive } from './time-arguments.js';
import { flatTopology, type Topology } from './topology.js';

/** A network's hardware parameters; each provider passes its machine's (its `model.ts`). */
export interface NetworkParameters {
  /** Number of nodes (NICs), numbered 0..nodes-1. */
  readonly nodes: number;
  /** Wire and switch latency of a message, ns (from the end of injection to the last byte's arrival, before hops). */
  readonly latencyNs: number;
  /** Link bandwidth, bytes per ns (= GB/s). */
  readonly bytesPerNs: number;
  /** Largest payload of one packet, bytes. */
  readonly packetBytes: number;
  /** Header bytes each packet adds on the wire. */
  readonly packetOverheadBytes: number;
  /** Per-message cost of the sending NIC before the bytes go out, ns. */
  readonly injectOverheadNs: number;
  /** Per-message cost of the receiving NIC after the last byte is in, ns. */
  readonly ejectOverheadNs: number;
  /** Switch hops between two nodes; default `flatTopology`. */
  readonly topology?: Topology;
  /** Cost of each hop, ns; default 0. */
  readonly perHopNs?: number;
}

/**
 * A LogGP-like network (DESIGN §6). A message of B bytes is sent as P = max(1, ceil(B / packetBytes))
 * packets, W = B + P·packetOverheadBytes bytes on the wire, taking S = W / bytesPerNs to serialise.
 *
 * - Injection is serialised per node (a NIC's send queue is FIFO: it sends one message at a time, in
 *   the order they were handed to it): `injectedAt = max(startNs, src's NIC free) + injectOverheadNs + S`.
 * - The last byte reaches the target `latencyNs + hops·perHopNs` later; the first byte S before that.
 * - Ejection is serialised per node (messages arriving at one node stream in one after another, in
 *   the order their first bytes reach it): `arrivesAt = max(last byte there, dst's NIC free + S) + ejectOverheadNs`.
 *
 * The two NICs are booked separately: `inject` in the order the sender hands messages over, `eject`
 * in the order they reach the target, which is not the order of the calls when a sender is busy (a
 * short message must not wait at its target for a long one that has not left yet). `SimNetwork` calls
 * `eject` from a kernel event at the first byte's arrival. Pure otherwise: no clock, no I/O.
 */
export class NetworkModel {
  readonly nodes: number;
  readonly latencyNs: number;
  readonly bytesPerNs: number;
  readonly packetBytes: number;
  readonly packetOverheadBytes: number;
  readonly injectOverheadNs: number;
  readonly ejectOverheadNs: number;
  readonly perHopNs: number;
  private readonly topology: Topology;
  private readonly injectFree: Float64Array;
  private readonly ejectFree: Float64Array;

  constructor(parameters: NetworkParameters) {
    if (typeof parameters !== 'object' || parameters === null) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `parameters must be an object, got ${describe(parameters)}`, { argument: 'parameters' });
    }
    this.nodes = requireInteger(parameters.nodes, 'parameters.nodes', 1, 1 << 24);
    this.latencyNs = requireFiniteAtLeast(parameters.latencyNs, 'parameters.latencyNs', 0);
    this.bytesPerNs = requirePositive(parameters.bytesPerNs, 'parameters.bytesPerNs');
    this.packetBytes = requireInteger(parameters.packetBytes, 'parameters.packetBytes', 1, Number.MAX_SAFE_INTEGER);
    this.packetOverheadBytes = requireInteger(parameters.packetOverheadBytes, 'parameters.packetOverheadBytes', 0, Number.MAX_SAFE_INTEGER);
    this.injectOverheadNs = requireFiniteAtLeast(parameters.injectOverheadNs, 'parameters.injectOverheadNs', 0);
    this.ejectOverheadNs = requireFiniteAtLeast(parameters.ejectOverheadNs, 'parameters.ejectOverheadNs', 0);
    this.perHopNs = requireFiniteAtLeast(parameters.perHopNs ?? 0, 'parameters.perHopNs', 0);
    if (parameters.topology !== undefined) requireFunction(parameters.topology, 'parameters.topology');
    this.topology = parameters.topology ?? flatTopology;
    this.injectFree = new Float64Array(this.nodes);
    this.ejectFree = new Float64Array(this.nodes);
  }

  /** Packets a message of `bytes` takes (at least one, for an empty message too). */
  packets(bytes: number): number {
    return Math.max(1, Math.ceil(bytes / this.packetBytes));
  }

  /** Bytes on the wire for a message of `bytes`: payload plus a header per packet. */
  wireBytes(bytes: number): number {
    return bytes + this.packets(bytes) * this.packetOverheadBytes;
  }

  /** Time to put a message of `bytes` on the wire, ns. */
  serializationNs(bytes: number): number {
    return this.wireBytes(bytes) / this.bytesPerNs;
  }

  /**
   * Hand a message of `bytes` for `dst` to `src`'s NIC, the sender ready at `startNs`: books the NIC's
   * send queue (in call order) and returns when the message's last byte reaches `dst`. Its first
   * byte is there `serializationNs(bytes)` earlier; `eject` books `dst`'s NIC from then.
   */
  inject(src: number, dst: number, bytes: number, startNs: number): number {
    this.checkNode(src, 'src');
    this.checkNode(dst, 'dst');
    requireInteger(bytes, 'bytes', 0, Number.MAX_SAFE_INTEGER);
    requireFiniteAtLeast(startNs, 'startNs', 0);
    const hops = this.topology(src, dst);
    if (typeof hops !== 'number' || !Number.isSafeInteger(hops) || hops < 0) {
      throw new DatError(DatStatus.INTERNAL_ERROR, `the topology gave ${describe(hops)} hops from node ${src} to node ${dst}; it must give an integer >= 0`);
    }
    const injectedAt = Math.max(startNs, this.injectFree[src]) + this.injectOverheadNs + this.serializationNs(bytes);
    this.injectFree[src] = injectedAt;
    return injectedAt + this.latencyNs + hops * this.perHopNs;
  }

  /**
   * Book `dst`'s NIC for a message of `bytes` whose last byte reaches it at `lastByteAt`; returns
   * when the NIC has received it. Call in the order the messages' first bytes reach `dst`.
   */
  eject(dst: number, bytes: number, lastByteAt: number): number {
    this.checkNode(dst, 'dst');
    requireInteger(bytes, 'bytes', 0, Number.MAX_SAFE_INTEGER);
    requireFiniteAtLeast(lastByteAt, 'lastByteAt', 0);
    const arrivesAt = Math.max(lastByteAt, this.ejectFree[dst] + this.serializationNs(bytes)) + this.ejectOverheadNs;
    this.ejectFree[dst] = arrivesAt;
    return arrivesAt;
  }

  /** When `node`'s NIC can start injecting its next message, ns. */
  injectionFreeAt(node: number): number {
    this.checkNode(node, 'node');
    return this.injectFree[node];
  }

  /** When `node`'s NIC has received every message ejected to it so far, ns. */
  ejectionFreeAt(node: number): number {
    this.checkNode(node, 'node');
    return this.ejectFree[node];
  }

  /** Forget every booking (both NICs of every node free at 0). */
  reset(): void {
    this.injectFree.fill(0);
    this.ejectFree.fill(0);
  }

  private checkNode(node: number, argument: string): void {
    if (typeof node !== 'number' || !Number.isSafeInteger(node) || node < 0 || node >= this.nodes) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a node in [0, ${this.nodes - 1}], got ${describe(node)}`, { argument });
    }
  }
}
