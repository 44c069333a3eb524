import { Fifo, type Endpoint, type RmrTriplet } from '@dapl/core';
import type { MpiError } from '../../api/errors.js';
import type { IncomingMessage, RecvRequest, SendRequest } from '../../adi/requests.js';
import { AdvertisedReceives } from './advertised-receives.js';
import { ClaimableSends } from './claimable-sends.js';
import type { InboundBoxes, OutboundBoxes } from './fastbox.js';
import { MessageCounter } from './message-counter.js';
import type { NoticeBatch } from './receive-notices.js';

/** Something waiting to go out in an eager buffer: a send (eager data or RTS), a CTS for a receive, or a notice about a receive. */
export type Outgoing = SendRequest | RecvRequest | NoticeBatch;

/**
 * The device's state for one peer (MVAPICH2's VC): the endpoint, the receive buffers posted for the
 * peer, the credit window, messages waiting for a credit or for the connection, and unexpected
 * messages kept in receive buffers. Messages leave in the order they were sent (the backlog is FIFO
 * and nothing overtakes it), which MPI's non-overtaking rule needs.
 */
export class PeerLink {
  /** The endpoint our sends go out on (from `connections.endpoint`), once connected. */
  sendEp: Endpoint | undefined = undefined;
  /** `sendEp` is connected and may be posted on. */
  ready = false;
  /** Receive buffers the peer may still fill: our sends' window. */
  credits: number;
  /** Buffers re-posted for the peer that we have not yet told it about. */
  pendingReturn = 0;
  /** A ring, not an array shifted and truncated: a send that leaves at once allocates nothing here (small at first: most links queue little). */
  readonly #backlog = new Fifo<Outgoing>(4);
  /** Unexpected messages whose data still sits in our receive buffers, oldest first. */
  readonly held: IncomingMessage[] = [];
  /** The peer's doorbell window, for immediates. */
  bell: RmrTriplet | undefined = undefined;
  failed: MpiError | undefined = undefined;
  connecting = false;
  /** Messages we sent the peer, and messages the peer sent us, counted per (context, tag). */
  readonly sent = new MessageCounter();
  readonly arrived = new MessageCounter();
  /** Receives the peer advertised to us. */
  readonly advertisements = new AdvertisedReceives();
  /** Our unanswered RTSs an advertisement may still claim. */
  readonly claimable = new ClaimableSends<SendRequest>();
  /** Our advertised receives still posted, per message key (context, tag). */
  readonly advertisedPosted = new Map<number, number>();
  /** Our receives being taken back (REVOKE sent), oldest first: REVOKED answers come in this order. */
  readonly revoking: RecvRequest[] = [];
  /** Our last receive naming this peer that matched nothing on posting was advertised to it. */
  advertisedLast = false;
  /**
   * Messages we put on DAT (each with a header, and each write into an advertised receive), and
   * the peer's that arrived by DAT: a fastbox waits for those sent before it, so that it keeps its
   * place among them as in one queue (fastbox-protocol.ts).
   */
  datSent = 0;
  datArrived = 0;
  /** Our fastboxes to the peer, where the provider gives peer memory. */
  outbound: OutboundBoxes | undefined = undefined;
  /** The peer's fastboxes to us, one set per endpoint (two on a rank's link to itself). */
  inbound: InboundBoxes[] | undefined = undefined;
  /** Notices not yet sent, still taking more (the newest batch of each kind in the backlog). */
  openAdvertise: NoticeBatch | undefined = undefined;
  openRevoke: NoticeBatch | undefined = undefined;

  constructor(
    readonly peer: number,
    window: number,
  ) {
    this.credits = window;
  }

  get backlogSize(): number {
    return this.#backlog.size;
  }

  push(item: Outgoing): void {
    this.#backlog.push(item);
  }

  peek(): Outgoing {
    return this.#backlog.peek()!;
  }

  shift(): Outgoing {
    return this.#backlog.shift()!;
  }

  /** Everything still queued, emptied (the peer was lost). */
  /** The backlog, oldest first, left in place (for a report of what is still to go). */
  backlog(): Outgoing[] {
    const items: Outgoing[] = [];
    for (let i = 0; i < this.#backlog.size; i++) items.push(this.#backlog.at(i)!);
    return items;
  }

  takeBacklog(): Outgoing[] {
    return this.#backlog.drain();
  }
}

/**
 * The device's links, each made when its peer is first used: a map, not an array indexed by rank,
 * since a rank of a large job speaks to few of its ranks (MVAPICH2's on-demand connections).
 */
export class PeerLinks {
  readonly #byPeer = new Map<number, PeerLink>();

  constructor(
    /** Each new link's credit window. */
    readonly window: number,
    /** Called with each new link (the doorbells track it). */
    readonly made: (link: PeerLink) => PeerLink,
  ) {}

  get(peer: number): PeerLink | undefined {
    return this.#byPeer.get(peer);
  }

  /** The link of `peer`, made if this is the first use. */
  of(peer: number): PeerLink {
    let link = this.#byPeer.get(peer);
    if (link === undefined) this.#byPeer.set(peer, (link = this.made(new PeerLink(peer, this.window))));
    return link;
  }

  /** Every link, by peer rank (the order copy-outs and reports go in, whatever order the links were made in). */
  inPeerOrder(): PeerLink[] {
    return [...this.#byPeer.values()].sort((a, b) => a.peer - b.peer);
  }
}
