import { SimNetwork, type SimKernel } from '@dapl/core';
import { SimFabric } from '@dapl/core/provider-kit';
import { LAPI_PARAMETERS, type LapiParameters } from './params.js';

/**
 * The simulated SP of one provider object: the kit's fabric (the IAs by address `lapi:<task>`,
 * listeners, nodes) with the switch (SimNetwork: per-node injection and ejection) and each node's
 * HAL send and receive paths (CPU copies into pinned network buffers and adapter DMA).
 */
export class LapiFabric extends SimFabric<LapiParameters> {
  readonly network: SimNetwork;
  /** Payload bytes of one switch packet (the LAPI header is inside the packet). */
  readonly payloadBytes: number;
  /** Per node: when its HAL send path (copy + adapter DMA) is free again, ns. */
  private readonly sendFree: Float64Array;
  /** Per node: when its HAL receive path (adapter DMA + copy out) is free again, ns. */
  private readonly recvFree: Float64Array;

  constructor(kernel: SimKernel, params: LapiParameters) {
    super(kernel, params, 'lapi', LAPI_PARAMETERS);
    this.payloadBytes = params.packetBytes - params.lapiHeaderBytes;
    this.network = new SimNetwork(kernel, {
      nodes: params.maxNodes,
      latencyNs: params.switchLatencyNs,
      bytesPerNs: params.switchBytesPerNs,
      packetBytes: this.payloadBytes,
      packetOverheadBytes: params.lapiHeaderBytes,
      injectOverheadNs: params.adapterSendNs,
      ejectOverheadNs: params.adapterRecvNs,
    });
    this.sendFree = new Float64Array(params.maxNodes);
    this.recvFree = new Float64Array(params.maxNodes);
  }

  /**
   * Send `bytes` from `src` to `dst`, the LAPI call done at `startNs`, and run `then(arg)` when the
   * message has been received by `dst`'s adapter and, in interrupt mode, the interrupt has woken the
   * dispatcher there (after the handler's wait for more packets, `interruptDelayNs`). The HAL copies
   * each packet into a pinned network buffer (Banikazemi et al. §2) and the adapter DMAs it out
   * (Banikazemi et al. §2), pipelined per packet, in the order of the calls; the switch then carries the
   * packets. The target's port is booked when the first packet reaches it, not at the call: the
   * switch is packet-switched (Banikazemi et al. §1), so a message whose packets reach a port first
   * goes first, whichever LAPI call came first (a short message must not queue behind a long one that
   * a busy sender will only start later).
   */
  send<A>(src: number, dst: number, bytes: number, startNs: number, then: (arg: A) => void, arg: A): void {
    const p = this.params;
    const { packets, first, last } = this.split(bytes);
    const begin = Math.max(startNs, this.sendFree[src]);
    const copyFirst = p.halPacketNs + first / p.halCopyBytesPerNs;
    const copyAll = packets * p.halPacketNs + bytes / p.halCopyBytesPerNs;
    const firstAt = begin + copyFirst + p.dmaLatencyNs + first / p.dmaBytesPerNs;
    // Two-stage pipeline (copy, DMA): the slower stage sets the pace after the first packet.
    const doneAt = begin + p.dmaLatencyNs + Math.max(copyAll + last / p.dmaBytesPerNs, copyFirst + bytes / p.dmaBytesPerNs);
    this.sendFree[src] = doneAt;
    // The switch must not overtake the adapter: the last packet leaves no earlier than it was DMA'd.
    const wireStart = Math.max(firstAt, doneAt - this.network.serializationNs(bytes));
    const interrupt = p.mode === 'interrupt' ? p.interruptNs + p.interruptDelayNs : 0;
    this.network.send(src, dst, bytes, wireStart, then, arg, interrupt);
  }

  /**
   * The receiving side of a message of `bytes` noticed at `node` at `arrivedAt` (see `send`): the
   * header handler runs at the first packet (Banikazemi et al. §2), the adapter DMAs each packet into a HAL
   * receive buffer and HAL copies it out to the buffer the handler returned. Returns when the data is
   * in place (before any completion handler).
   */
  receive(node: number, bytes: number, arrivedAt: number): number {
    const p = this.params;
    const { packets, first, last } = this.split(bytes);
    const firstIn = arrivedAt - (this.network.serializationNs(bytes) - this.network.serializationNs(first));
    const handled = firstIn + p.headerHandlerNs;
    const lastStages = p.dmaLatencyNs + last / p.dmaBytesPerNs + p.halPacketNs + last / p.halCopyBytesPerNs;
    const streamed = Math.max(arrivedAt, handled) + lastStages;
    const dmaFirst = first / p.dmaBytesPerNs;
    const queued = Math.max(this.recvFree[node], handled) + p.dmaLatencyNs + Math.max(bytes / p.dmaBytesPerNs + p.halPacketNs + last / p.halCopyBytesPerNs, dmaFirst + packets * p.halPacketNs + bytes / p.halCopyBytesPerNs);
    const done = Math.max(streamed, queued);
    this.recvFree[node] = done;
    return done;
  }

  /** When `node`'s HAL send path has copied out everything sent so far (an origin buffer is reusable then), ns. */
  sendPathFreeAt(node: number): number {
    return this.sendFree[node];
  }

  /** Cost of the completion handler a DAT send's target completion runs (Banikazemi et al. §5.2, Banikazemi et al. §5.3). */
  completionNs(): number {
    const p = this.params;
    return p.completionInContextNs + (p.completionHandler === 'thread' ? p.completionThreadSwitchNs : 0);
  }

  private split(bytes: number): { packets: number; first: number; last: number } {
    const packets = this.network.packets(bytes);
    const first = Math.min(bytes, this.payloadBytes);
    return { packets, first, last: bytes - (packets - 1) * this.payloadBytes };
  }
}
