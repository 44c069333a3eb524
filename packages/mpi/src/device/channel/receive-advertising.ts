import type { IncomingMessage, RecvRequest, SendRequest } from '../../adi/requests.js';
import { RequestTable } from '../../adi/request-table.js';
import type { DeviceHost } from '../device.js';
import { MessageCounter } from '../rdma/message-counter.js';
import type { BulkStream } from './bulk-stream.js';
import { ControlKind, emptyPacket, fillPacket, type ControlPacket } from './channel.js';

/**
 * Receives advertised to one peer (never more at once): each holds a bulk receive posted into the
 * user's memory and a pinned registration until the sender fills or declines it.
 */
const MAX_ADVERTISED_PER_PEER = 16;

/** A receive advertised to its sender: the receiver's record of it (also the request's `deviceState`). */
export class AdvertisedReceive {
  /** Its bulk receive: posted, or completed with the data (filled) or with nothing (declined). */
  bulk: 'posted' | 'filled' | 'declined' = 'posted';
  /** The message that matched it: ADVERTISED_DATA's envelope (the data comes on the bulk stream), or a message of another protocol. */
  matched: { readonly source: number; readonly tag: number; readonly size: number } | 'other' | undefined = undefined;
  /** Counted in its peer's `live` (the sender may still write into it). */
  live = true;
  /** Its id in the table the peer's ADVERTISED_DATA names it by. */
  id = 0;
  constructor(
    readonly request: RecvRequest,
    readonly peer: number,
    /** The message it will match. */
    readonly epoch: number,
    readonly ordinal: number,
  ) {}
}

/** A request to send whose advertisement may still come (it crossed the receive's): the sender then sends the data into it at once. */
interface ClaimableSend {
  readonly context: number;
  readonly tag: number;
  readonly epoch: number;
  readonly ordinal: number;
  readonly request: SendRequest;
}

/** An advertisement held by the sender, until a message uses it or it is declined. */
interface Advertisement {
  readonly context: number;
  readonly tag: number;
  readonly epoch: number;
  readonly ordinal: number;
  readonly capacity: number;
  readonly receiverRequest: number;
}

/** One peer's side of advertising, both directions. */
class PeerAdvertising {
  /** Our messages to the peer, counted per (context, tag) as they enter the channel. */
  readonly sent = new MessageCounter();
  /** The peer's messages, counted per (context, tag) as they arrive (the same order). */
  readonly arrived = new MessageCounter();
  /** The peer's advertisements we hold, in the order they came (its bulk receives' order). */
  readonly held: Advertisement[] = [];
  /** Our advertised receives the peer may still write into. */
  live = 0;
  /** Our receives with a bulk receive still posted for an advertisement. */
  open = 0;
  /** Our cancels waiting for the peer's REVOKED: nothing is advertised to it meanwhile. */
  revoking = 0;
  /** Our unanswered requests to send that an advertisement may claim, oldest first. */
  readonly claimable: ClaimableSend[] = [];
  /** Advertisements we declined before their message went: its request to send is not claimable (the receive must answer it). */
  declinedEarly: Advertisement[] = [];
}

/** What advertising needs of the device. */
export interface AdvertisingDevice {
  readonly host: DeviceHost;
  readonly bulk: BulkStream;
  /** The largest message the sender sends eagerly: only larger ones use an advertisement (they would go by rendezvous). */
  readonly eagerLimit: number;
  sendControl(packet: ControlPacket, to: number): void;
  /** The peer broke the protocol (its data went to a receive that matching did not give it). */
  peerBroke(peer: number, cause: Error): void;
  /** The receive's bulk transfer failed. */
  receiveFailed(request: RecvRequest, peer: number, cause: Error): void;
  /** Send `request`'s data on the bulk stream now if its request to send is still unanswered (an advertisement claims it); false if answered. */
  claim(request: SendRequest): boolean;
  /** Whether a message of `size` bytes, synchronous or not, may go into an advertised receive (both ends decide alike). */
  usable(size: number, synchronous: boolean): boolean;
}

/**
 * Receiver-initiated rendezvous for the channel device (as the rdma device's receiver-initiated.ts):
 * a large receive posted before its message is advertised to the sender, its memory posted first as
 * the next bulk receive from that sender, with the ordinal of the message it will match — both ends
 * count each peer's messages per context and tag in channel order. The sender of that message
 * sends it at once, an ADVERTISED_DATA packet on the channel and the data on the bulk stream straight
 * into the receive: no request to send, no ready-to-receive.
 *
 * The bulk stream pairs the n-th send with the n-th receive, so every advertisement is answered on
 * it exactly once, in the order they came: by the data, or by an empty send (declined) — when the
 * message is small, synchronous or does not fit, when its request to send went first and was
 * answered (one that crossed the advertisement is adopted by the receive, which sends no
 * ready-to-receive, and claimed by the sender, which then sends the data at once), when
 * other bulk data must pass (a ready-to-receive or a later advertisement's data: an advertisement
 * never holds anything up), or when the receiver cancels. A declined receive is an ordinary posted
 * receive again. Only receives with no older wildcard rival are advertised; cancelling any receive
 * from a peer with live advertisements first asks the peer to decline them all (REVOKE, REVOKED), so
 * that no later receive ends up matching another message than the one its advertisement names.
 */
export class ReceiveAdvertising {
  readonly #peers: PeerAdvertising[] = [];
  readonly #advertised = new RequestTable<AdvertisedReceive>();
  readonly #revokes = new RequestTable<RecvRequest>();
  readonly #out: ControlPacket = emptyPacket();
  readonly counts = { advertisedReceives: 0, advertisedSends: 0, claimedSends: 0, adoptedReceives: 0, declinedAdvertisements: 0, revokes: 0 };

  constructor(private readonly device: AdvertisingDevice) {}

  #peer(rank: number): PeerAdvertising {
    return (this.#peers[rank] ??= new PeerAdvertising());
  }

  // ---- the sender's side --------------------------------------------------------------------

  /**
   * A message to `peer` enters the channel now (every protocol calls this, in channel order):
   * count it, and return the advertisement it uses, if the peer advertised its receive and the
   * message can go into it (then the caller sends ADVERTISED_DATA naming `receiverRequest` and the
   * data on the bulk stream, before any other bulk send to that peer); else 0, or -1 when it goes
   * by request to send and no advertisement may claim that (its own was declined before it went).
   */
  onSend(request: SendRequest, synchronous: boolean): number {
    const { peer, context, tag } = request;
    const size = request.data.size;
    const p = this.#peer(peer);
    let receiverRequest = 0;
    const held = p.held;
    const usable = this.device.usable(size, synchronous);
    const ordinal = p.sent.nextOrdinal(context, tag);
    const epoch = p.sent.nextEpoch(ordinal);
    if (held.length > 0) {
      const at = held.findIndex((ad) => ad.context === context && ad.tag === tag && ad.epoch === epoch && ad.ordinal === ordinal);
      if (at >= 0) {
        const ad = held[at];
        // Those before it were posted first at the receiver: answered first.
        this.#decline(peer, p, at);
        held.shift();
        if (usable && size <= ad.capacity) {
          receiverRequest = ad.receiverRequest;
          this.counts.advertisedSends++;
        } else {
          this.counts.declinedAdvertisements++;
          this.device.bulk.decline(peer);
        }
      }
    }
    p.sent.count(context, tag);
    if (receiverRequest !== 0) return receiverRequest;
    if (!usable) return -1;
    if (p.declinedEarly.length > 0 && this.#wasDeclined(p, context, tag, epoch, ordinal)) return -1;
    // It goes by request to send: the receive's advertisement may be on its way.
    p.claimable.push({ context, tag, epoch, ordinal, request });
    return 0;
  }

  /** Whether the advertisement for message (`epoch`, `ordinal`) of (context, tag) was declined early; forgets those of that key up to it. */
  #wasDeclined(p: PeerAdvertising, context: number, tag: number, epoch: number, ordinal: number): boolean {
    let found = false;
    p.declinedEarly = p.declinedEarly.filter((ad) => {
      if (ad.context !== context || ad.tag !== tag) return ad.epoch >= epoch;
      if (ad.epoch === epoch && ad.ordinal === ordinal) found = true;
      return ad.epoch === epoch && ad.ordinal > ordinal;
    });
    return found;
  }

  /** The peer answered `request`'s request to send (ready-to-receive): no advertisement will claim it. */
  answered(request: SendRequest): void {
    const claimable = this.#peers[request.peer]?.claimable;
    const at = claimable === undefined ? -1 : claimable.findIndex((c) => c.request === request);
    if (at >= 0) claimable!.splice(at, 1);
  }

  /** Rendezvous data is about to go on the bulk stream to `peer`: the advertisements that came before its ready-to-receive are declined first. */
  beforeBulkSend(peer: number): void {
    const p = this.#peers[peer];
    if (p !== undefined && p.held.length > 0) this.#decline(peer, p, p.held.length);
  }

  /** Decline the first `n` held advertisements, in order (their messages have not gone yet). */
  #decline(peer: number, p: PeerAdvertising, n: number): void {
    for (const ad of p.held.splice(0, n)) {
      p.declinedEarly.push(ad);
      this.counts.declinedAdvertisements++;
      this.device.bulk.decline(peer);
    }
  }

  /** An ADVERTISE packet: hold it, or decline it at once when its message has gone already. */
  onAdvertise(from: number, packet: ControlPacket): void {
    const p = this.#peer(from);
    const ad: Advertisement = { context: packet.context, tag: packet.tag, epoch: packet.source, ordinal: packet.senderRequest, capacity: packet.size, receiverRequest: packet.receiverRequest };
    const gone = ad.epoch < p.sent.epoch || (ad.epoch === p.sent.epoch && ad.ordinal <= p.sent.counted(ad.context, ad.tag));
    if (!gone) {
      p.held.push(ad);
      return;
    }
    this.#decline(from, p, p.held.length);
    // Its message went by request to send, which the receive matches and does not answer: send the data now.
    const at = p.claimable.findIndex((c) => c.context === ad.context && c.tag === ad.tag && c.epoch === ad.epoch && c.ordinal === ad.ordinal);
    const claimed = at >= 0 ? p.claimable.splice(at, 1)[0].request : undefined;
    if (claimed !== undefined && claimed.data.size <= ad.capacity && this.device.claim(claimed)) {
      this.counts.claimedSends++;
      return;
    }
    this.counts.declinedAdvertisements++;
    this.device.bulk.decline(from);
  }

  /** A REVOKE packet: decline every advertisement held, then answer (after any ADVERTISED_DATA already sent). */
  onRevoke(from: number, packet: ControlPacket): void {
    const p = this.#peer(from);
    this.#decline(from, p, p.held.length);
    this.#control(ControlKind.REVOKED, from, packet.receiverRequest);
  }

  // ---- the receiver's side ------------------------------------------------------------------

  /** A message of the peer's arrived on the channel (every protocol calls this, in channel order): its ordinal (its epoch into `counted`). */
  onArrival(from: number, context: number, tag: number, counted?: { epoch: number }): number {
    const arrived = this.#peer(from).arrived;
    const ordinal = arrived.count(context, tag);
    if (counted !== undefined) counted.epoch = arrived.epoch;
    return ordinal;
  }

  /**
   * A receive was posted and matched nothing: advertise it when it is large, one run of bytes, fits
   * one bulk message, names its source and tag, and no older receive could take its message but
   * ones of the same source and tag (they take the messages before it, in post order).
   */
  advertise(request: RecvRequest): void {
    const peer = request.peer;
    const data = request.data;
    const device = this.device;
    if (peer === undefined || data.size <= device.eagerLimit || data.size > device.bulk.largestMessage || !data.program.contiguous) return;
    // The packet must follow the receive's post: the first large receive from a peer makes the connection.
    if (!device.bulk.connected(peer)) return device.bulk.connect(peer);
    const p = this.#peer(peer);
    if (p.revoking > 0 || p.open >= MAX_ADVERTISED_PER_PEER) return;
    const ahead = device.host.olderRivals(request);
    if (ahead < 0) return;
    const ordinal = p.arrived.counted(request.context, request.tag) + ahead + 1;
    const epoch = p.arrived.epoch;
    const state = new AdvertisedReceive(request, peer, epoch, ordinal);
    const id = (state.id = this.#advertised.add(state));
    request.deviceState = state;
    p.live++;
    p.open++;
    this.counts.advertisedReceives++;
    const start = data.offset + data.program.minOffset;
    device.bulk.receive(
      peer,
      data.bytes.subarray(start, start + data.size),
      () => {
        const packet = fillPacket(this.#out, ControlKind.ADVERTISE, request.context, epoch, request.tag, data.size, ordinal, id);
        device.sendControl(packet, peer);
      },
      (error, moved) => this.#bulkDone(state, p, error, moved ?? 0),
    );
  }

  #bulkDone(state: AdvertisedReceive, p: PeerAdvertising, error: Error | undefined, moved: number): void {
    p.open--;
    this.#settle(state, p);
    const request = state.request;
    if (error !== undefined) {
      this.#advertised.take(state.id);
      if (!request.done) this.device.receiveFailed(request, state.peer, error);
      return;
    }
    state.bulk = moved > 0 ? 'filled' : 'declined';
    const matched = state.matched;
    if (moved > 0 && matched === undefined) return; // ADVERTISED_DATA is on its way on the channel
    this.#advertised.take(state.id);
    if (request.deviceState === state) request.deviceState = undefined;
    if (moved === 0 && (matched === undefined || matched === 'other')) return;
    if (moved > 0 && matched !== 'other') return request.finish(matched!.source, matched!.tag, matched!.size);
    this.device.peerBroke(state.peer, new Error(`rank ${state.peer} ${moved > 0 ? 'sent data into an advertised receive that another message matched' : 'declined an advertised receive it had sent ADVERTISED_DATA for'}`));
  }

  /** The sender can no longer write into it (filled, declined, or matched). */
  #settle(state: AdvertisedReceive, p: PeerAdvertising): void {
    if (!state.live) return;
    state.live = false;
    p.live--;
  }

  /** An ADVERTISED_DATA packet: the message of `ordinal`, for our receive `receiverRequest`, its data on the bulk stream. */
  onAdvertisedData(from: number, packet: ControlPacket, ordinal: number): void {
    const state = this.#advertised.get(packet.receiverRequest);
    const host = this.device.host;
    if (state === undefined || state.peer !== from || state.matched !== undefined || !host.arriveInto(state.request)) {
      this.device.peerBroke(from, new Error(`rank ${from} sent message ${ordinal} of context ${packet.context}, tag ${packet.tag} into an advertised receive that matching does not give it`));
      return;
    }
    state.matched = { source: packet.source, tag: packet.tag, size: packet.size };
    this.#settle(state, this.#peer(from));
    if (state.bulk !== 'filled') return;
    this.#advertised.take(state.id);
    state.request.deviceState = undefined;
    state.request.finish(packet.source, packet.tag, packet.size);
  }

  /**
   * A request to send matched `request`: when the receive was advertised for this very message and
   * the message can go into it, the sender sends the data into it once the advertisement reaches it
   * (it claims its unanswered request to send, see `onAdvertise`), so no ready-to-receive: true.
   */
  adopt(message: IncomingMessage, epoch: number, ordinal: number, request: RecvRequest): boolean {
    const state = request.deviceState;
    if (!(state instanceof AdvertisedReceive) || state.bulk === 'declined' || state.epoch !== epoch || state.ordinal !== ordinal) return false;
    if (!this.device.usable(message.size, message.synchronous) || message.size > request.data.size) return false;
    state.matched = { source: message.source, tag: message.tag, size: message.size };
    this.#settle(state, this.#peer(state.peer));
    this.counts.adoptedReceives++;
    if (state.bulk !== 'filled') return true;
    this.#advertised.take(state.id);
    request.deviceState = undefined;
    request.finish(message.source, message.tag, message.size);
    return true;
  }

  /** A message of another protocol matched `request`: if it was advertised, its sender will decline the advertisement. */
  matchedOtherwise(request: RecvRequest): void {
    const state = request.deviceState;
    if (!(state instanceof AdvertisedReceive)) return;
    state.matched = 'other';
    request.deviceState = undefined;
    this.#settle(state, this.#peer(state.peer));
  }

  /**
   * MPI_Cancel of a receive from a peer with live advertisements: taking it away could make a later
   * advertised receive match an earlier message than it names, so the peer first declines them all.
   */
  deferCancel(request: RecvRequest): boolean {
    const peer = request.peer;
    const p = peer === undefined ? undefined : this.#peers[peer];
    if (p === undefined || p.live === 0 || request.done) return false;
    p.revoking++;
    this.counts.revokes++;
    const id = this.#revokes.add(request);
    this.#control(ControlKind.REVOKE, peer!, id);
    return true;
  }

  /** The peer's REVOKED: it holds none of our advertisements now; cancel the receive if nothing matched it meanwhile. */
  onRevoked(from: number, packet: ControlPacket): void {
    const request = this.#revokes.take(packet.receiverRequest);
    if (request === undefined) return;
    this.#peer(from).revoking--;
    if (!request.done) this.device.host.cancelPosted(request);
  }

  #control(kind: ControlKind, to: number, receiverRequest: number): void {
    this.device.sendControl(fillPacket(this.#out, kind, 0, 0, 0, 0, 0, receiverRequest), to);
  }
}
