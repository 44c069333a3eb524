import type { RecvRequest } from '../../adi/requests.js';
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
  ) {}
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
 * message is small, synchronous or does not fit, when it went before the advertisement came, when
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
  readonly counts = { advertisedReceives: 0, advertisedSends: 0, declinedAdvertisements: 0, revokes: 0 };

  constructor(private readonly device: AdvertisingDevice) {}

  #peer(rank: number): PeerAdvertising {
    return (this.#peers[rank] ??= new PeerAdvertising());
  }

  // ---- the sender's side --------------------------------------------------------------------

  /**
   * A message to `peer` enters the channel now (every protocol calls this, in channel order):
   * count it, and return the advertisement it uses, if the peer advertised its receive and the
   * message can go into it (then the caller sends ADVERTISED_DATA naming `receiverRequest` and the
   * data on the bulk stream, before any other bulk send to that peer).
   */
  onSend(peer: number, context: number, tag: number, size: number, usable: boolean): number {
    const p = this.#peers[peer];
    if (p === undefined) return 0;
    let receiverRequest = 0;
    const held = p.held;
    if (held.length > 0) {
      const ordinal = p.sent.nextOrdinal(context, tag);
      const epoch = p.sent.nextEpoch(ordinal);
      const at = held.findIndex((ad) => ad.context === context && ad.tag === tag && ad.epoch === epoch && ad.ordinal === ordinal);
      if (at >= 0) {
        const ad = held[at];
        // Those before it were posted first at the receiver: answered first.
        this.#decline(peer, p, at);
        held.shift();
        if (usable && size > this.device.eagerLimit && size <= ad.capacity) {
          receiverRequest = ad.receiverRequest;
          this.counts.advertisedSends++;
        } else {
          this.counts.declinedAdvertisements++;
          this.device.bulk.decline(peer);
        }
      }
    }
    p.sent.count(context, tag);
    return receiverRequest;
  }

  /** Rendezvous data is about to go on the bulk stream to `peer`: the advertisements that came before its ready-to-receive are declined first. */
  beforeBulkSend(peer: number): void {
    const p = this.#peers[peer];
    if (p !== undefined && p.held.length > 0) this.#decline(peer, p, p.held.length);
  }

  /** Decline the first `n` held advertisements, in order. */
  #decline(peer: number, p: PeerAdvertising, n: number): void {
    for (const _ of p.held.splice(0, n)) {
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

  /** A message of the peer's arrived on the channel (every protocol calls this, in channel order); its ordinal. */
  onArrival(from: number, context: number, tag: number): number {
    return this.#peer(from).arrived.count(context, tag);
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
    const state = new AdvertisedReceive(request, peer);
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
