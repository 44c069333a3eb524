import { EpState, type Endpoint, type PeerMemory } from '@dapl/core';
import type { Logger } from 'pino';
import { HeaderFlag, MessageKind, emptyHeader, readHeader, writeHeader, type Header } from '../../adi/header.js';
import { SendMode, type SendRequest } from '../../adi/requests.js';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { EagerProtocol } from './eager-protocol.js';
import { FASTBOX_BYTES, FASTBOX_PAYLOAD, InboundBoxes, OutboundBoxes } from './fastbox.js';
import type { PeerLink } from './peer-link.js';
import { sendStatus, type RdmaContext } from './rdma-context.js';

/**
 * The rdma device's fastboxes over a provider's peer memory (the `peer-memory` extension): small
 * eager messages written by the sender straight into boxes the receiver polls, as MPICH nemesis
 * does beside its queues — no transport post, no completion events, no credit. Messages that do
 * not fit, or find the next box still full, go by DAT as before; each box carries how many of the
 * link's messages went by DAT before it, and the receiver takes a box only once those have
 * arrived, and drains the boxes of a link before each DAT message of it, so order holds both ways.
 */
export class Fastboxes {
  readonly #memory: PeerMemory;
  /** Endpoints whose regions the provider has not joined yet (connections in progress). */
  #pending: { ep: Endpoint; link: PeerLink }[] = [];
  #inbound: InboundBoxes[] = [];
  readonly #removePoller: () => void;
  /** A delivery is scheduled from the provider's progress. */
  #scheduled = false;
  #closed = false;

  readonly #ctx: RdmaContext;
  readonly #eager: EagerProtocol;
  readonly #logger: Logger;
  /** The largest message a box takes: what fits, and eager at all. */
  readonly #largest: number;
  /** Headers of their own: a box may be delivered while a DAT message's header is in use, and sent while another is encoded. */
  readonly #inHeader: Header = emptyHeader();
  readonly #outHeader: Header = emptyHeader();

  constructor(memory: PeerMemory, ctx: RdmaContext, eager: EagerProtocol, logger: Logger) {
    this.#memory = memory;
    this.#ctx = ctx;
    this.#eager = eager;
    this.#logger = logger;
    this.#largest = Math.min(FASTBOX_PAYLOAD, ctx.params.eagerLimit);
    this.#removePoller = memory.addPoller(this.#peek);
  }

  /** Whether boxes can carry messages: regions of at least one box. */
  static usable(memory: PeerMemory | undefined): memory is PeerMemory {
    return memory !== undefined && memory.bytes >= FASTBOX_BYTES;
  }

  /** An endpoint to `link`'s peer was made: poll its inbound boxes once the provider joined its regions. */
  expect(ep: Endpoint, link: PeerLink): void {
    if (!this.#open(ep, link)) this.#pending.push({ ep, link });
  }

  /** The sender's boxes on connected `ep`, or undefined (the provider gave no regions). */
  outbound(ep: Endpoint): OutboundBoxes | undefined {
    const regions = this.#memory.regions(ep);
    return regions === undefined ? undefined : new OutboundBoxes(ep, regions.outbound);
  }

  /**
   * Send `request` through the link's next box (nothing may be queued ahead of it on the link):
   * false when it does not fit or the box is still full, and it goes by DAT.
   */
  send(link: PeerLink, request: SendRequest): boolean {
    const size = request.data.size;
    if (size > this.#largest) return false;
    const boxes = link.outbound!;
    const box = boxes.take();
    if (box === undefined) {
      this.#ctx.counts.fastboxFull++;
      return false;
    }
    const h = this.#outHeader;
    h.flags = request.mode === SendMode.READY ? HeaderFlag.READY : 0;
    h.context = request.context;
    h.source = request.source;
    h.tag = request.tag;
    h.size = size;
    h.senderRequest = 0;
    if (this.#ctx.settings.advertise) link.sent.count(request.context, request.tag);
    this.#eager.encode(h, request, box);
    writeHeader(box.view, h);
    boxes.publish(box, link.datSent);
    this.#memory.notify(boxes.ep);
    this.#ctx.counts.fastboxSends++;
    // A synchronous send waits for the receiver's acknowledgement (it is in the send table).
    if (h.kind !== MessageKind.EAGER_SYNC) request.complete(sendStatus);
    return true;
  }

  /** Deliver every ready box of every link. */
  poll(): void {
    this.#scheduled = false;
    if (this.#pending.length > 0) this.#openPending();
    const inbound = this.#inbound;
    for (let i = 0; i < inbound.length; i++) this.#deliver(inbound[i]);
  }

  /** Deliver the ready boxes of `link` (before its next DAT message, or once one arrived). */
  drain(link: PeerLink): void {
    const boxes = link.inbound;
    if (boxes !== undefined) for (let i = 0; i < boxes.length; i++) this.#deliver(boxes[i]);
  }

  /** Every ready box of `from`, in order (none: one look), each handled as an eager message in a receive buffer. */
  #deliver(from: InboundBoxes): void {
    const h = this.#inHeader;
    const link = from.link;
    try {
      for (let box = from.next(); box !== undefined; box = from.next()) {
        from.advance();
        if (!readHeader(box.view, h) || (h.kind !== MessageKind.EAGER && h.kind !== MessageKind.EAGER_SYNC)) {
          box.release();
          return this.#ctx.failLink(link, new MpiError(ErrorClass.ERR_INTERN, `a fastbox from rank ${link.peer} holds no eager message`));
        }
        this.#eager.arrived(h, box, from.ep, link);
      }
    } catch (error) {
      // Nothing throws out of progress: the failure fails the link, and what waits on the peer ends.
      this.#logger.error({ err: error, peer: link.peer }, 'handling a fastbox message failed; failing the peer link');
      this.#ctx.failLink(link, error instanceof MpiError ? error : new MpiError(ErrorClass.ERR_INTERN, `handling a fastbox message from rank ${link.peer} failed: ${String(error)}`, { cause: error }));
    }
  }

  readonly #pollSoon = (): void => {
    if (!this.#closed) this.poll();
  };

  close(): void {
    this.#closed = true;
    this.#removePoller();
    this.#pending = [];
    this.#inbound = [];
  }

  /** The provider's poller: look, and leave the delivery to a turn of our own (it may post and complete). */
  readonly #peek = (): boolean => {
    if (this.#pending.length > 0) this.#openPending();
    const inbound = this.#inbound;
    for (let i = 0; i < inbound.length; i++) {
      if (inbound[i].next() === undefined) continue;
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(this.#pollSoon);
      }
      return true;
    }
    return false;
  };

  #openPending(): void {
    this.#pending = this.#pending.filter(({ ep, link }) => !this.#open(ep, link));
  }

  /** Start polling `ep`'s inbound boxes; false while its regions are still to come (true too for an endpoint that will have none). */
  #open(ep: Endpoint, link: PeerLink): boolean {
    let regions;
    try {
      regions = this.#memory.regions(ep);
    } catch {
      // An endpoint the provider no longer knows (freed): it has no boxes to poll.
      return true;
    }
    if (regions === undefined) return ep.state === EpState.DISCONNECTED || ep.state === EpState.FREED;
    const boxes = new InboundBoxes(ep, link, regions.inbound);
    this.#inbound = [...this.#inbound, boxes];
    link.inbound = [...(link.inbound ?? []), boxes];
    return true;
  }
}
