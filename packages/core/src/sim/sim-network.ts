import { requireFunction } from '../provider-kit/validate.js';
import { NetworkModel, type NetworkParameters } from './network-model.js';
import type { SimKernel } from './sim-kernel.js';
import { requireFiniteAtLeast } from './time-arguments.js';

/**
 * A `NetworkModel` driven by the kernel: a message books its sender's NIC when it is sent (a NIC's
 * send queue is FIFO) and its target's NIC from a kernel event at the moment its first byte reaches
 * the target, so a target receives messages in the order they reach it, not in the order they were
 * sent from different nodes. Messages whose first bytes reach a node at the same time are taken in
 * the order they were sent (the kernel runs equal-time events in the order they were scheduled), so
 * the booking stays deterministic.
 */
export class SimNetwork extends NetworkModel {
  constructor(
    private readonly kernel: SimKernel,
    parameters: NetworkParameters,
  ) {
    super(parameters);
  }

  /**
   * Send `bytes` from `src` to `dst`, the sender ready at `startNs`, and run `then(arg)` `afterNs`
   * after `dst`'s NIC has received the message (for the target-side work the caller's hardware does
   * next, e.g. a DMA of the completion).
   */
  send<A>(src: number, dst: number, bytes: number, startNs: number, then: (arg: A) => void, arg: A, afterNs = 0): void {
    if (typeof then !== 'function') requireFunction(then, 'then');
    if (afterNs !== 0) requireFiniteAtLeast(afterNs, 'afterNs', 0);
    const lastByteAt = this.inject(src, dst, bytes, startNs);
    const message: InFlight<A> = { network: this, kernel: this.kernel, dst, bytes, lastByteAt, then, arg, afterNs };
    const firstByteAt = lastByteAt - this.serializationNs(bytes);
    this.kernel.schedule(Math.max(firstByteAt, this.kernel.now), reachesTarget as (m: InFlight<unknown>) => void, message as InFlight<unknown>);
  }
}

/** A message whose sender's NIC is booked and whose target's is not yet (SimNetwork.send). */
interface InFlight<A> {
  readonly network: NetworkModel;
  readonly kernel: SimKernel;
  readonly dst: number;
  readonly bytes: number;
  readonly lastByteAt: number;
  readonly then: (arg: A) => void;
  readonly arg: A;
  readonly afterNs: number;
}

/** The message's first byte is at its target: book the target's NIC and deliver it when received. */
function reachesTarget(m: InFlight<unknown>): void {
  const arrivesAt = m.network.eject(m.dst, m.bytes, m.lastByteAt);
  m.kernel.schedule(Math.max(arrivesAt + m.afterNs, m.kernel.now), m.then, m.arg);
}
