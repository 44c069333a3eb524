import { DtoStatus, EpState, MemAccess, type PeerRegions } from '@dapl/core';
import { defer, EndpointBase, gatherInto, IovWriter, type DtoRequest, type PostedRecv } from '@dapl/core/provider-kit';
import { ConnectionMemory, peerRegions, Side } from './connection-memory.js';
import { threadOf } from './control.js';
import { Doorbell } from './doorbell.js';
import { Kind, KIND_BITS, KIND_MASK, reasonOf, Refusal, refusalOf, W_ARG, W_CONTEXT_HI, W_CONTEXT_LO, W_KIND, W_LENGTH, W_OFFSET_HI, W_OFFSET_LO, W_TOTAL } from './frames.js';
import type { ShmIa } from './ia.js';
import { Outbound } from './outbound.js';
import type { Pollable } from './progress.js';
import type { ShmPz } from './pz.js';
import { frameBytes, SMALL_COPY } from './ring.js';
import { findWindow } from './window-directory.js';

/** What the payload of the message being received is for. */
const enum Into {
  NOTHING,
  RECEIVE,
  WINDOW,
  READ,
  DISCARD,
}

const TWO_32 = 2 ** 32;
/**
 * Polls a success waits for a frame to ride on (the reply the consumer's continuations post: MPI's
 * takes a few microtask turns to reach its send) before it gets a frame of its own. Fewer than the
 * empty turns an engine that does not spin makes before it sleeps (progress.ts), so none is left.
 */
const ACK_AFTER_POLLS = 3;
const KIND_OF: Record<DtoRequest['op'], Kind> = { send: Kind.SEND, 'rdma-write': Kind.WRITE, 'rdma-write-immediate': Kind.WRITE_IMMEDIATE, 'rdma-read': Kind.READ };
const DIRECT_KIND_OF: Record<DtoRequest['op'], Kind> = { send: Kind.SEND, 'rdma-write': Kind.WRITE_DIRECT, 'rdma-write-immediate': Kind.WRITE_DIRECT_IMMEDIATE, 'rdma-read': Kind.READ_DIRECT };

/**
 * An endpoint whose peer is another thread (or another IA of this thread): requests go into the
 * connection's outgoing ring, the peer's requests and responses come out of the incoming one, and
 * the target applies sends, RDMA writes and reads to its own memory after the RMR table's checks.
 * A send that finds no posted receive stays in the ring (and everything behind it), as on a
 * reliable connection; the sender fills the ring and then waits for room.
 */
export class ShmEndpoint extends EndpointBase implements Pollable {
  declare readonly ia: ShmIa;
  #memory: ConnectionMemory | undefined;
  /** This side's views of the connection's peer memory; kept after the connection ends, until free or the next connect. */
  #regions: PeerRegions | undefined;
  #out: Outbound | undefined;
  #peerBell: Doorbell | undefined;
  #peerAddress = '';
  #peerThread = -1;
  /** The id of this client's pending request, or of this server endpoint's accepted one. */
  #connectId = 0;
  #polled = false;
  #into = Into.NOTHING;
  #left = 0;
  #total = 0;
  #recv: PostedRecv | undefined;
  #window: Uint8Array | undefined;
  #windowAt = 0;
  #immediate = -1;
  #stalled = false;
  /** Polls since successes became due to report. */
  #ackPolls = 0;
  readonly #writer = new IovWriter([]);
  /** The peer's window directory and the zone of its endpoint (direct RDMA). */
  #peerDirectory: Int32Array | undefined;
  #peerZone = -1;
  /** RDMA requests that went through the ring and are not complete: no direct access may pass them. */
  readonly #ringRdma = new Set<DtoRequest>();

  /** The zone of this endpoint's PZ (what the peer's directory lookups must match). */
  get zone(): number {
    return (this.pz as ShmPz).zone;
  }

  // ---- connection set-up (the IA's control messages) ----------------------------------------

  protected startConnect(address: string, connQual: number, privateData: Uint8Array): void {
    this.#regions = undefined;
    this.#connectId = this.ia.requestConnection(this, address, connQual, privateData);
    this.#peerAddress = address;
  }

  protected cancelConnect(): void {
    this.ia.forgetRequest(this.#connectId);
    this.#connectId = 0;
  }

  /** The server accepted: attach to the memory this side offered. */
  accepted(memory: SharedArrayBuffer, peerMemory: SharedArrayBuffer | undefined, peerDoorbell: SharedArrayBuffer, privateData: Uint8Array, directory: SharedArrayBuffer, zone: number): boolean {
    if (this.state !== EpState.ACTIVE_CONNECTION_PENDING) return false;
    this.#connectId = 0;
    this.#attach(new ConnectionMemory(memory, ConnectionMemory.capacityOf(memory), Side.CLIENT), peerMemory, peerDoorbell, this.#peerAddress, directory, zone);
    this.established(this.#peerAddress, privateData);
    this.#startPolling();
    return true;
  }

  refused(type: 'connection-non-peer-rejected' | 'connection-unreachable', reason: string): void {
    this.#connectId = 0;
    this.connectFailed(type, reason);
  }

  rejected(privateData: Uint8Array): void {
    this.#connectId = 0;
    this.connectFailed('connection-peer-rejected', 'the peer rejected the connection request', privateData);
  }

  /**
   * Server side of `accept`: the memory comes with the request, peer memory of the size the client
   * chose (both sides agree whatever this IA's `peerMemoryBytes`); established once the client confirms.
   */
  acceptOn(memory: SharedArrayBuffer, peerMemory: SharedArrayBuffer | undefined, peerDoorbell: SharedArrayBuffer, peerAddress: string, id: number, directory: SharedArrayBuffer, zone: number): void {
    this.#connectId = id;
    this.#attach(new ConnectionMemory(memory, ConnectionMemory.capacityOf(memory), Side.SERVER), peerMemory, peerDoorbell, peerAddress, directory, zone);
  }

  /** The client confirmed; false if this endpoint went away meanwhile (the client then sees it closed). */
  confirmed(): boolean {
    if (this.state !== EpState.PASSIVE_CONNECTION_PENDING) {
      this.#memory?.close();
      this.#peerBell?.ring();
      return false;
    }
    this.established(this.#peerAddress);
    this.#startPolling();
    return true;
  }

  /** The client gave up before our accept reached it. */
  abandoned(): void {
    this.#detach();
    this.connectFailed('connection-unreachable', 'the client gave up before the request was accepted');
  }

  get connectId(): number {
    return this.#connectId;
  }

  // ---- peer memory (the 'peer-memory' extension) ----------------------------------------------

  /** This side's regions of the connection's peer memory, once attached (none if the client offered none). */
  get peerRegions(): PeerRegions | undefined {
    return this.#regions;
  }

  /** The peer should look at its inbound region: its doorbell rings if it sleeps. Nothing once the connection is gone. */
  notifyPeer(): void {
    if (this.#memory !== undefined) this.#peerBell!.ring();
  }

  /** The peer is the IA at `address`, or lives in thread `thread`. */
  peerIs(address: string | undefined, thread: number): boolean {
    if (this.#peerAddress === '') return false;
    return address !== undefined ? this.#peerAddress === address : this.#peerThread === thread;
  }

  /** The peer vanished (its thread ended, or it crashed): `connection-broken`, everything flushed. */
  broken(reason: string): void {
    this.#detach();
    this.#flushCurrent();
    this.connectionLost('connection-broken', reason);
  }

  /** Our IA is crashing: the peer sees nothing from us (no closed flag), only the loss notice. */
  vanish(): void {
    this.ia.progress.remove(this);
    this.#memory = undefined;
    this.#out = undefined;
  }

  // ---- endpoint hooks ---------------------------------------------------------------------

  protected startDisconnect(_abrupt: boolean): void {
    this.#close();
    defer(() => {
      this.#flushCurrent();
      this.connectionLost('connection-disconnected');
    });
  }

  protected teardown(): void {
    if (this.#connectId !== 0 && this.state === EpState.ACTIVE_CONNECTION_PENDING) this.ia.forgetRequest(this.#connectId);
    this.#close();
    this.#regions = undefined;
  }

  protected submit(request: DtoRequest): void {
    const remote = request.remote;
    if (remote === undefined) {
      this.#out!.request(Kind.SEND, request.iov, request.length, request.length, 0n, 0, 0);
    } else if (this.#ringRdma.size === 0 && this.#direct(request)) {
      // The data has moved; the frame has the target check the access and raise the immediate, in order.
      this.#out!.request(DIRECT_KIND_OF[request.op], request.iov, request.length, 0, remote.rmrContext, remote.targetOffset, request.immediate);
    } else {
      this.#ringRdma.add(request);
      const payload = request.op === 'rdma-read' ? 0 : request.length;
      this.#out!.request(KIND_OF[request.op], request.iov, request.length, payload, remote.rmrContext, remote.targetOffset, request.immediate);
    }
    this.#ringPeer();
    this.ia.progress.kick();
  }

  protected override onRecvPosted(): void {
    if (this.#stalled) this.ia.progress.kick();
  }

  // ---- polling ------------------------------------------------------------------------------

  poll(): boolean {
    const memory = this.#memory;
    if (memory === undefined || this.state !== EpState.CONNECTED) return false;
    const out = this.#out!;
    const moved = this.#consume(memory);
    // Successes no frame has carried for `ACK_AFTER_POLLS` polls (no reply was posted): a frame of their own.
    if (out.acks === 0) this.#ackPolls = 0;
    else if (++this.#ackPolls > ACK_AFTER_POLLS) {
      this.#ackPolls = 0;
      out.ack(Refusal.NONE);
      this.ia.count('ackFrames');
    }
    if (!out.idle) out.pump();
    this.#ringPeer();
    if (memory.peerClosed && this.#memory !== undefined) {
      this.#close();
      this.#flushCurrent();
      this.connectionLost('connection-disconnected', 'the peer disconnected');
      return true;
    }
    return moved;
  }

  #consume(memory: ConnectionMemory): boolean {
    const ring = memory.in;
    const w = ring.words;
    let moved = false;
    for (let at = ring.peek(); at >= 0; at = ring.peek()) {
      const h = at >> 2;
      const word = w[h + W_KIND];
      const kind = word & KIND_MASK;
      if (word !== kind) {
        // Reported once: a frame that must wait for a receive is looked at again.
        w[h + W_KIND] = kind;
        for (let i = word >>> KIND_BITS; i > 0; i--) this.#complete(DtoStatus.SUCCESS);
      }
      const length = w[h + W_LENGTH];
      if (kind !== Kind.MORE && !this.#begin(kind, h, w)) {
        this.#stalled = true;
        break;
      }
      this.#stalled = false;
      if (length > 0) this.#absorb(ring, at, length);
      this.#left -= length;
      if (this.#left === 0 && this.#into !== Into.NOTHING) this.#finish();
      if (ring.release(frameBytes(length))) this.#peerBell!.ring();
      moved = true;
      if (this.#memory === undefined) break;
    }
    return moved;
  }

  /** The first frame of a message; false when it must wait (a send with no receive posted). */
  #begin(kind: number, h: number, w: Int32Array): boolean {
    const total = w[h + W_TOTAL] >>> 0;
    this.#total = total;
    this.#left = total;
    switch (kind) {
      case Kind.SEND: {
        const recv = this.takeRecv();
        if (recv === undefined) return false;
        if (recv.length < total) {
          this.completeRecv(recv, DtoStatus.LOCAL_LENGTH, 0);
          this.#out!.ack(Refusal.LENGTH);
          this.#into = Into.DISCARD;
        } else {
          this.#recv = recv;
          this.#writer.reset(recv.iov);
          this.#into = Into.RECEIVE;
        }
        return true;
      }
      case Kind.WRITE:
      case Kind.WRITE_IMMEDIATE: {
        const grant = this.ia.rmrTable.check(contextOf(w, h), this.pz, offsetOf(w, h), total, MemAccess.REMOTE_WRITE);
        if (typeof grant === 'string') {
          this.#out!.ack(refusalOf(grant));
          this.#into = Into.DISCARD;
        } else {
          this.#window = grant.bytes;
          this.#windowAt = grant.start;
          this.#immediate = kind === Kind.WRITE_IMMEDIATE ? w[h + W_ARG] >>> 0 : -1;
          this.#into = Into.WINDOW;
        }
        return true;
      }
      case Kind.READ: {
        const grant = this.ia.rmrTable.check(contextOf(w, h), this.pz, offsetOf(w, h), total, MemAccess.REMOTE_READ);
        if (typeof grant === 'string') this.#out!.readResponse(undefined, 0, 0, refusalOf(grant));
        else this.#out!.readResponse(grant.bytes, grant.start, total, Refusal.NONE);
        this.#into = Into.NOTHING;
        this.#left = 0;
        return true;
      }
      case Kind.WRITE_DIRECT:
      case Kind.WRITE_DIRECT_IMMEDIATE:
      case Kind.READ_DIRECT: {
        const need = kind === Kind.READ_DIRECT ? MemAccess.REMOTE_READ : MemAccess.REMOTE_WRITE;
        const grant = this.ia.rmrTable.check(contextOf(w, h), this.pz, offsetOf(w, h), total, need);
        if (typeof grant === 'string') this.#out!.ack(refusalOf(grant));
        else {
          if (kind === Kind.WRITE_DIRECT_IMMEDIATE) this.raiseImmediate(w[h + W_ARG] >>> 0, total);
          this.#out!.acks++;
        }
        this.#into = Into.NOTHING;
        this.#left = 0;
        return true;
      }
      case Kind.READ_RESPONSE: {
        const refusal = w[h + W_ARG] as Refusal;
        this.#into = Into.NOTHING;
        if (refusal !== Refusal.NONE) {
          this.#complete(DtoStatus.REMOTE_ACCESS, reasonOf(refusal));
          this.#left = 0;
        } else {
          this.#writer.reset(this.requests.peek()!.iov);
          this.#into = Into.READ;
        }
        return true;
      }
      case Kind.ACK: {
        const refusal = w[h + W_ARG] as Refusal;
        if (refusal !== Refusal.NONE) this.#complete(refusal === Refusal.LENGTH ? DtoStatus.REMOTE_RESPONDER : DtoStatus.REMOTE_ACCESS, reasonOf(refusal));
        this.#into = Into.NOTHING;
        this.#left = 0;
        return true;
      }
      default:
        // Only a peer writing outside the protocol gets here: the connection cannot go on.
        this.broken(`the peer sent an unknown frame kind ${kind}`);
        return false;
    }
  }

  #absorb(ring: ConnectionMemory['in'], at: number, length: number): void {
    switch (this.#into) {
      case Into.RECEIVE: {
        // A small message in one frame into a receive's first segment: copied with no view made.
        const first = this.#recv!.iov[0];
        if (length <= SMALL_COPY && length === this.#total && first.length >= length) {
          ring.copyOut(at, length, first.lmr.bytes, first.offset);
          break;
        }
        ring.take(at, 0, length, this.#toWriter);
        break;
      }
      case Into.READ:
        ring.take(at, 0, length, this.#toWriter);
        break;
      case Into.WINDOW:
        ring.take(at, 0, length, this.#toWindow);
        break;
      default:
    }
  }

  readonly #toWriter = (piece: Uint8Array): void => {
    this.#writer.write(piece);
  };

  readonly #toWindow = (piece: Uint8Array): void => {
    this.#window!.set(piece, this.#windowAt);
    this.#windowAt += piece.length;
  };

  #finish(): void {
    const into = this.#into;
    this.#into = Into.NOTHING;
    if (into === Into.RECEIVE) {
      const recv = this.#recv!;
      this.#recv = undefined;
      this.completeRecv(recv, DtoStatus.SUCCESS, this.#total);
      this.#out!.acks++;
    } else if (into === Into.WINDOW) {
      this.#window = undefined;
      if (this.#immediate >= 0) this.raiseImmediate(this.#immediate, this.#total);
      this.#out!.acks++;
    } else if (into === Into.READ) {
      this.#complete(DtoStatus.SUCCESS);
    }
  }

  /** Complete the oldest request; a ring RDMA request that completes no longer holds direct ones back. */
  #complete(status: DtoStatus, reason?: Parameters<EndpointBase['completeRequest']>[1]): void {
    const request = this.completeRequest(status, reason);
    if (request !== undefined) this.#ringRdma.delete(request);
  }

  /**
   * Carry out an RDMA request straight on the target's memory when its window is in the peer's
   * directory, over memory the peer announced, in this endpoint's peer zone, with the rights, and
   * the access inside it: one copy, no ring. Anything else (a forged context, an access out of
   * bounds) goes through the ring for the target to refuse; nothing is touched here.
   */
  #direct(request: DtoRequest): boolean {
    const directory = this.#peerDirectory;
    const remote = request.remote!;
    if (directory === undefined || request.length === 0) return false;
    const window = findWindow(directory, remote.rmrContext);
    if (window === undefined || window.zone !== this.#peerZone) return false;
    const reading = request.op === 'rdma-read';
    const need = reading ? MemAccess.REMOTE_READ : MemAccess.REMOTE_WRITE;
    const offset = remote.targetOffset;
    if ((window.access & need) !== need || offset < window.base || offset + request.length > window.base + window.length) return false;
    const memory = this.ia.peerMemory(this.#peerAddress, window.memory);
    const at = window.lmrStart + offset;
    if (memory === undefined || at + request.length > memory.length) return false;
    if (reading) new IovWriter(request.iov).write(memory.subarray(at, at + request.length));
    else gatherInto(request.iov, memory, at);
    this.ia.count('directBytes', request.length);
    return true;
  }

  // ---- internals ------------------------------------------------------------------------------

  #attach(memory: ConnectionMemory, peerMemory: SharedArrayBuffer | undefined, peerDoorbell: SharedArrayBuffer, peerAddress: string, directory: SharedArrayBuffer, zone: number): void {
    this.#peerDirectory = new Int32Array(directory);
    this.#peerZone = zone;
    this.#memory = memory;
    // Made once per connection: `regions(ep)` hands out the same views on every call.
    this.#regions = peerMemory === undefined ? undefined : peerRegions(peerMemory, memory.side);
    this.#out = new Outbound(memory.out, this.ia.fragmentBytes);
    this.#peerBell = new Doorbell(peerDoorbell);
    this.#peerAddress = peerAddress;
    this.#peerThread = threadOf(peerAddress);
  }

  #startPolling(): void {
    this.#polled = true;
    this.ia.progress.add(this);
  }

  #ringPeer(): void {
    const out = this.#out;
    if (out !== undefined && out.published) {
      out.published = false;
      this.#peerBell!.ring();
    }
  }

  /** Tell the peer we are done (its next poll sees it) and stop polling. */
  #close(): void {
    if (this.#memory !== undefined) {
      // Successes still unreported (they wait one poll for a frame to ride on) go before the flag.
      if (this.#out!.acks > 0) this.#out!.ack(Refusal.NONE);
      this.#memory.close();
      this.#peerBell!.ring();
    }
    this.#detach();
  }

  #detach(): void {
    if (this.#polled) this.ia.progress.remove(this);
    this.#polled = false;
    this.#out?.clear();
    this.#memory = undefined;
    this.#stalled = false;
    this.#ringRdma.clear();
    this.#peerDirectory = undefined;
  }

  /** A receive taken by a message that will never finish completes first, as the oldest. */
  #flushCurrent(): void {
    const recv = this.#recv;
    this.#recv = undefined;
    this.#into = Into.NOTHING;
    if (recv !== undefined) this.completeRecv(recv, DtoStatus.FLUSHED, 0);
  }
}

function contextOf(w: Int32Array, h: number): bigint {
  return (BigInt(w[h + W_CONTEXT_HI] >>> 0) << 32n) | BigInt(w[h + W_CONTEXT_LO] >>> 0);
}

function offsetOf(w: Int32Array, h: number): number {
  return (w[h + W_OFFSET_HI] >>> 0) * TWO_32 + (w[h + W_OFFSET_LO] >>> 0);
}
