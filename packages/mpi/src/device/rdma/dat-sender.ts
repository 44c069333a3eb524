import { EpState } from '@dapl/core';
import { HEADER_BYTES, HeaderFlag, MessageKind, emptyHeader, writeHeader, type Header } from '../../adi/header.js';
import { SendMode, SendRequest } from '../../adi/requests.js';
import type { EagerProtocol } from './eager-protocol.js';
import type { PeerLink, Outgoing } from './peer-link.js';
import { NoticeBatch, writeNotices } from './receive-notices.js';
import type { RdmaContext } from './rdma-context.js';
import type { ReceiverInitiated } from './receiver-initiated.js';
import type { RendezvousProtocol } from './rendezvous-protocol.js';
import type { SendSlots, Slot } from './slot.js';

/**
 * What a link sends by DAT (MVAPICH2's vbufs and credits): each message — eager data, an RTS, a
 * CTS, receive notices — in one of the rank's pre-registered send buffers behind its header,
 * spending one of the peer's credits; or, for a send whose receive the peer advertised, written
 * straight into that receive. A message that finds no credit or no free buffer waits in its link's
 * backlog, in order, until credits come back or a buffer is free again.
 */
export class DatSender {
  readonly #ctx: RdmaContext;
  readonly #eager: EagerProtocol;
  readonly #rendezvous: RendezvousProtocol;
  readonly #advertised: ReceiverInitiated;
  /** Connect the link (its first message); it is pumped once connected. */
  readonly #connect: (link: PeerLink) => void;
  /** Encoding has a header of its own: decoding a message may send others (credits unstall a backlog). */
  readonly #header: Header = emptyHeader();
  /** Links whose head waits for a free send buffer. */
  readonly #waitingForSlots = new Set<PeerLink>();
  #slots: SendSlots | undefined;

  constructor(ctx: RdmaContext, eager: EagerProtocol, rendezvous: RendezvousProtocol, advertised: ReceiverInitiated, connect: (link: PeerLink) => void) {
    this.#ctx = ctx;
    this.#eager = eager;
    this.#rendezvous = rendezvous;
    this.#advertised = advertised;
    this.#connect = connect;
  }

  /** The rank's send buffers (made at attach). */
  attach(slots: SendSlots): void {
    this.#slots = slots;
  }

  /** Send what the link's credits, its connection and the free send buffers allow, in order. */
  pump(link: PeerLink): void {
    if (!link.ready) return this.#connect(link);
    if (link.sendEp!.state !== EpState.CONNECTED) return;
    while (link.backlogSize > 0 && this.sendNow(link, link.peek())) link.shift();
  }

  /**
   * Send `item` if its receive was advertised, or a credit and a free send buffer allow. False: it
   * must wait (the stall is noted). The backlog is the caller's: EVD notifications are deferred, so
   * nothing sent here re-enters the device while `item` is still its head.
   */
  sendNow(link: PeerLink, item: Outgoing): boolean {
    if (item instanceof SendRequest && link.advertisements.size > 0 && this.#advertised.tryWrite(link, item)) {
      link.datSent++;
      return true;
    }
    if (link.credits === 0) {
      this.#ctx.counts.creditStalls++;
      return false;
    }
    const slot = this.#slots!.take();
    if (slot === undefined) {
      this.#waitingForSlots.add(link);
      return false;
    }
    link.credits--;
    this.#transmit(link, item, slot);
    return true;
  }

  /** A send buffer's post completed: it is free again. Returns the blocking send that waited for it, if any. */
  release(slot: Slot): SendRequest | undefined {
    const owner = slot.owner;
    slot.owner = undefined;
    this.#slots!.give(slot);
    return owner;
  }

  /** Buffers were freed: the links that waited for one go on. */
  resume(): void {
    if (this.#waitingForSlots.size === 0) return;
    const waiting = [...this.#waitingForSlots];
    this.#waitingForSlots.clear();
    for (const link of waiting) this.pump(link);
  }

  #transmit(link: PeerLink, item: Outgoing, slot: Slot): void {
    link.datSent++;
    const h = this.#header;
    h.credits = Math.min(link.pendingReturn, 0xffff);
    link.pendingReturn -= h.credits;
    h.flags = 0;
    h.receiverRequest = 0;
    h.targetOffset = 0;
    h.rmrContext = 0n;
    let length = HEADER_BYTES;
    if (item instanceof NoticeBatch) {
      if (link.openAdvertise === item) link.openAdvertise = undefined;
      if (link.openRevoke === item) link.openRevoke = undefined;
      h.kind = item.kind === 'advertise' ? MessageKind.ADVERTISE : MessageKind.REVOKE;
      h.context = 0;
      h.source = 0;
      h.tag = 0;
      h.senderRequest = 0;
      h.size = item.size;
      length += writeNotices(slot.view, item);
    } else if (item instanceof SendRequest) {
      const ordinal = this.#ctx.settings.advertise ? link.sent.count(item.context, item.tag) : 0;
      h.context = item.context;
      h.source = item.source;
      h.tag = item.tag;
      h.size = item.data.size;
      h.senderRequest = 0;
      if (item.mode === SendMode.READY) h.flags |= HeaderFlag.READY;
      if (item.data.size <= this.#ctx.params.eagerLimit) length += this.#eager.encode(h, item, slot);
      else this.#rendezvous.encodeRts(h, link, item, ordinal);
    } else {
      this.#rendezvous.encodeCts(h, item);
    }
    writeHeader(slot.view, h);
    link.sendEp!.postSend(slot.post(length), slot, LOCAL_COMPLETION);
    if (item instanceof SendRequest && h.kind === MessageKind.EAGER) this.#eager.posted(link, item, slot);
  }
}

/**
 * Eager buffers are ours again once the bytes have left: they ask for local completion, also so
 * that a rendezvous write posted behind them is not held back (an endpoint completes in post order).
 */
const LOCAL_COMPLETION = { localCompletion: true } as const;
