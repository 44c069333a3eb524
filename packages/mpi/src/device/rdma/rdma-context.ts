import { RegistrationCache, type Clock, type DtoCompletionEvent, type Endpoint, type IaAttributes, type ProtectionZone, type Rmr, type RmrTriplet } from '@dapl/core';
import { HeaderFlag, MessageKind, type Header } from '../../adi/header.js';
import type { IncomingMessage } from '../../adi/requests.js';
import type { Arrival } from './arrival.js';
import { noticesPerMessage } from './receive-notices.js';
import type { MpiParameters } from '../../api/mpi-parameters.js';
import type { RequestTable } from '../../adi/request-table.js';
import type { RecvRequest, SendRequest } from '../../adi/requests.js';
import { ErrorClass, MpiError } from '../../api/errors.js';
import { Status } from '../../api/status.js';
import type { DeviceHost } from '../device.js';
import type { ImmediateKind } from './immediate.js';
import type { PeerLink } from './peer-link.js';
import { WriteSources } from './rendezvous.js';
import type { EagerBuffer } from './slot.js';

/** Rendezvous chunks stay below the provider's RDMA limit and a size every provider handles well. */
export const MAX_CHUNK = 1 << 30;

/** What a completed send reports (MPI leaves a send's status undefined; ours is the empty one). */
export const sendStatus = Status.EMPTY;

/** The rdma device's protocol counters (`device.counters()`). */
export interface RdmaCounts {
  eagerSends: number;
  rendezvousSends: number;
  advertisedReceives: number;
  receiverInitiatedSends: number;
  lateAdvertisements: number;
  creditStalls: number;
  creditImmediates: number;
  bouncedSends: number;
  /** Times the shared eager pool ran low at its full size (`mpi.srqBuffers`). */
  poolExhausted: number;
  /** Eager messages sent through a fastbox (peer memory), and those that found the peer's next box full and went by DAT. */
  fastboxSends: number;
  fastboxFull: number;
}

/** What `attach` learns of the provider, and the tools it makes, for every protocol of the device. */
export class RdmaSettings {
  /** Rendezvous by RDMA read (else by write after a CTS). */
  read = true;
  /** The provider completes a post once its bytes have left (tcp), not on the peer's acknowledgement. */
  localCompletion = false;
  /** Receives posted before their message are advertised to the sender, which writes into them. */
  advertise = false;
  noticesPerMessage = 0;
  chunk = MAX_CHUNK;
  maxIov = 1;
  cache: RegistrationCache | undefined = undefined;
  writeSources: WriteSources | undefined = undefined;

  /** What the provider offers, and `mpi.*`, decide (at attach). */
  configure(p: MpiParameters, attrs: IaAttributes, pz: ProtectionZone, clock: Clock): void {
    const canRead = attrs.capabilities.includes('rdma-read');
    // Auto: read where the provider has it, except where a write completes on the sender as soon as
    // its bytes have left (tcp). There the sender's blocking send is done once the CTS is answered,
    // while by read it waits for the receiver's FIN, and a ping-pong stays in RTS-and-read for good.
    this.read = p.rendezvous === 'read' || (p.rendezvous === 'auto' && canRead && !attrs.localCompletion);
    this.localCompletion = attrs.localCompletion;
    if (this.read && !canRead) throw new MpiError(ErrorClass.ERR_ARG, `mpi.rendezvous is 'read' but provider ${attrs.provider} has no RDMA read`, { argument: 'mpi.rendezvous' });
    this.chunk = Math.min(MAX_CHUNK, attrs.limits.maxRdmaSize);
    this.noticesPerMessage = noticesPerMessage(p.eagerLimit);
    this.advertise = p.receiverInitiated && this.noticesPerMessage > 0 && attrs.capabilities.includes('rdma-write-immediate');
    this.maxIov = attrs.limits.maxIov;
    this.cache = new RegistrationCache(pz, p.registrationCache);
    this.writeSources = new WriteSources(this.cache, this.maxIov, clock);
  }
}

/**
 * What the rdma device's protocols (eager, rendezvous by read and by write, receiver-initiated
 * advertisements) share: its settings, request tables and counters, and the link services the
 * device provides — connecting and pumping a link, ringing a peer's doorbell, failing a link.
 */
export interface RdmaContext {
  readonly params: MpiParameters;
  readonly host: DeviceHost;
  readonly clock: Clock;
  readonly settings: RdmaSettings;
  readonly counts: RdmaCounts;
  /** Sends waiting for the peer (synchronous eager, rendezvous), by id. */
  readonly sendTable: RequestTable<SendRequest>;
  /** Receives waiting for the peer's data (a CTS sent, an advertisement), by id. */
  readonly recvTable: RequestTable<RecvRequest>;
  link(peer: number): PeerLink;
  /** Send what the link's credits, connection and free send buffers allow. */
  pump(link: PeerLink): void;
  /** An immediate on the peer's doorbell (once its doorbell is known). */
  ring(ep: Endpoint, link: PeerLink, kind: ImmediateKind, value: number): void;
  /** `use` the peer's doorbell once it is known. */
  whenBellKnown(link: PeerLink, use: (bell: RmrTriplet) => void): void;
  failLink(link: PeerLink, error: MpiError): void;
  /** Give a receive buffer back to its endpoint, and its credit back to the peer (batched); or a fastbox back to its sender. */
  repost(slot: EagerBuffer, ep: Endpoint, link: PeerLink): void;
  /**
   * A message arrived from `link` by DAT (one with a header, or a write into an advertised
   * receive): the fastboxes the peer wrote before it are delivered first, and it is counted (those
   * written after it wait for it).
   */
  arrivedByDat(link: PeerLink): void;
  /** An RMR from the pool (or a new one); `returnRmr` unbinds it and gives it back. */
  takeRmr(): Rmr;
  returnRmr(rmr: Rmr): void;
}

/** A transfer with `peer` that completed in error: the peer is lost to us. */
export function transportError(peer: number, event: DtoCompletionEvent): MpiError {
  return new MpiError(ErrorClass.ERR_PROC_FAILED, `transfer with rank ${peer} failed: ${event.op} completed with ${event.status}${event.reason === undefined ? '' : ` (${event.reason})`}`);
}

/** A message's ordinal among its context and tag's from `link`: counted only for receiver-initiated rendezvous (0 without it). */
export function countArrival(settings: RdmaSettings, link: PeerLink, context: number, tag: number): number {
  return settings.advertise ? link.arrived.count(context, tag) : 0;
}

/** The message record of an arrived eager message or RTS (its header `h`), for matching. */
export function incoming(peer: number, h: Header, payload: Uint8Array | undefined, arrival: Arrival): IncomingMessage {
  return {
    peer,
    context: h.context,
    source: h.source,
    tag: h.tag,
    size: h.size,
    payload,
    synchronous: h.kind === MessageKind.EAGER_SYNC,
    ready: (h.flags & HeaderFlag.READY) !== 0,
    deviceState: arrival,
  };
}
