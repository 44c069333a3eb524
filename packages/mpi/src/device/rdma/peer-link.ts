import type { Endpoint, RmrTriplet } from '@dapl/core';
import type { MpiError } from '../../api/errors.js';
import type { IncomingMessage, RecvRequest, SendRequest } from '../../adi/requests.js';
import { AdvertisedReceives } from './advertised-receives.js';
import { ClaimableSends } from './claimable-sends.js';
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
  readonly backlog: Outgoing[] = [];
  /** Index of the backlog's head (the array is compacted when drained). */
  backlogHead = 0;
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
    return this.backlog.length - this.backlogHead;
  }

  push(item: Outgoing): void {
    this.backlog.push(item);
  }

  peek(): Outgoing {
    return this.backlog[this.backlogHead];
  }

  shift(): Outgoing {
    const item = this.backlog[this.backlogHead];
    this.backlog[this.backlogHead++] = undefined as unknown as Outgoing;
    if (this.backlogHead === this.backlog.length) {
      this.backlog.length = 0;
      this.backlogHead = 0;
    } else if (this.backlogHead > 1024 && this.backlogHead * 2 > this.backlog.length) {
      this.backlog.splice(0, this.backlogHead);
      this.backlogHead = 0;
    }
    return item;
  }

  /** Everything still queued, emptied (the peer was lost). */
  takeBacklog(): Outgoing[] {
    const items = this.backlog.slice(this.backlogHead);
    this.backlog.length = 0;
    this.backlogHead = 0;
    return items;
  }
}
