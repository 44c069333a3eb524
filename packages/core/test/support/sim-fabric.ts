import type { NetworkParameters } from '../../src/sim/network-model.js';
import type { SimNetwork } from '../../src/sim/sim-network.js';
import type { SimKernel } from '../../src/sim/sim-kernel.js';

// One-way time of a B-byte message alone on this network: 100 + (B + 16·packets) / 2 + 1000 + 7 + 50.
export const NET: NetworkParameters = {
  nodes: 8,
  latencyNs: 1000,
  bytesPerNs: 2,
  packetBytes: 256,
  packetOverheadBytes: 16,
  injectOverheadNs: 100,
  ejectOverheadNs: 50,
  perHopNs: 7,
};

interface Message {
  readonly src: number;
  readonly dst: number;
  readonly bytes: number;
  readonly tag: number;
}

interface Inbox {
  readonly queue: Message[];
  waiter: ((message: Message) => void) | undefined;
}

/**
 * How a provider uses the kernel, reduced to its bones: a send leaves at the sender's clock, the
 * network delivers it when it arrives, and a receiver blocks through `blockedOn`. Every send and
 * delivery is logged with the virtual time.
 */
export class FakeFabric {
  readonly log: string[] = [];
  private readonly inboxes: Inbox[];

  constructor(
    private readonly kernel: SimKernel,
    private readonly net: SimNetwork,
    ranks: number,
    private readonly logging = true,
  ) {
    this.inboxes = Array.from({ length: ranks }, () => ({ queue: [], waiter: undefined }));
  }

  send(src: number, dst: number, bytes: number, tag = 0): void {
    const at = this.kernel.clock(src).nowNs;
    if (this.logging) this.log.push(`${at} send ${src}->${dst} ${bytes}B #${tag}`);
    this.net.send(src, dst, bytes, at, this.deliver, { src, dst, bytes, tag });
  }

  recv(rank: number): Promise<Message> {
    const inbox = this.inboxes[rank];
    const ready = inbox.queue.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return this.kernel.blockedOn(rank, 'recv() on its inbox', new Promise<Message>((resolve) => (inbox.waiter = resolve)));
  }

  private readonly deliver = (message: Message): void => {
    if (this.logging) this.log.push(`${this.kernel.now} deliver ${message.src}->${message.dst} #${message.tag}`);
    const inbox = this.inboxes[message.dst];
    const waiter = inbox.waiter;
    if (waiter === undefined) {
      inbox.queue.push(message);
      return;
    }
    inbox.waiter = undefined;
    waiter(message);
  };
}

export function oneWayNs(bytes: number): number {
  const packets = Math.max(1, Math.ceil(bytes / NET.packetBytes));
  return NET.injectOverheadNs + (bytes + packets * NET.packetOverheadBytes) / NET.bytesPerNs + NET.latencyNs + (NET.perHopNs ?? 0) + NET.ejectOverheadNs;
}
