import type { MpiError } from '../api/errors.js';
import type { IncomingMessage, RecvRequest, SendRequest } from '../adi/requests.js';
import type { RdmaTransport } from './rdma-transport.js';

/**
 * What the ADI asks of a device (MPICH's ADI3 ↔ CH3 boundary, reduced). The ADI owns matching and
 * request lifetimes; the device moves bytes with whatever protocol its transport is best at.
 */
export interface Device {
  readonly name: string;
  /** Direct RDMA for one-sided communication, where the transport offers it (else RMA goes by messages). */
  readonly rdmaTransport?: RdmaTransport;
  /** Start a send; the device completes or fails `request`. */
  send(request: SendRequest): void;
  /** `message` matched `request`: move the data into it and complete both ends. */
  deliver(message: IncomingMessage, request: RecvRequest): void;
  /** `message` matched nothing and stays queued: the device may copy it out of transport memory. */
  keep(message: IncomingMessage): void;
  /**
   * A receive (or probe) from world rank `peer` (undefined: any source) was posted and matched
   * nothing: release whatever holds that peer's messages back, so that it can arrive. `request` is
   * the receive (undefined for a probe): the device may tell the peer about it.
   */
  receivePosted(peer: number | undefined, request?: RecvRequest): void;
  /**
   * MPI_Cancel of a posted receive: true when the device must first take the receive back from the
   * peer it told about it; it then calls `host.cancelPosted` (the receive may match meanwhile).
   * False: the ADI cancels now.
   */
  deferCancel(request: RecvRequest): boolean;
  /** Drop a queued message for good (its communicator was freed). */
  discard(message: IncomingMessage): void;
  /** Settles when no send of this rank is still in flight. */
  drain(): Promise<void>;
  /**
   * Take what the transport has now, synchronously (optional): the device's EVDs dequeued, which on
   * a provider whose `dequeuePollUs` is above 0 polls the provider itself. A blocking call spins on
   * it before it awaits (see adi/polled-wait.ts).
   */
  poll?(): void;
  /** The sends `drain` still waits for, for finalize's report when it gives up (optional: a device without it is reported by count). */
  pendingSends?(): readonly SendRequest[];
  /** Which protocol serves which message sizes, one line each. */
  protocolInfo(): string[];
  /** Counters for tests and tools (bytes held for unexpected messages, protocol use …). */
  counters(): Readonly<Record<string, number>>;
  /**
   * Close connections the device made beside the job's own (optional), before those close: MPI
   * finalize calls it once this rank's sends have drained, ahead of the job's teardown.
   */
  closeConnections?(): Promise<void>;
  close(): Promise<void>;
}

/** What a device calls back into (the ADI). */
export interface DeviceHost {
  /** A message arrived from a peer, in the order that peer sent it. */
  arrive(message: IncomingMessage): void;
  /**
   * `arrive` in two steps, for a device that can deliver without a message record: the receive a
   * message of (`context`, `source`, `tag`) matches, taken off the posted queue (the device then
   * delivers into it and completes it), or undefined, and then the device must call
   * `arriveUnexpected` with the message before anything else arrives.
   */
  takePosted(context: number, source: number, tag: number): RecvRequest | undefined;
  /** A message that `takePosted` found no receive for: it joins the unexpected queue (and `keep` is called). */
  arriveUnexpected(message: IncomingMessage): void;
  /**
   * A message with `request`'s own context, source and tag arrived with its data already written
   * into `request`: true when matching gives it `request` (which leaves the posted queue; the device
   * completes it), false when it would not (the device then calls `arrive` as for any message).
   */
  arriveInto(request: RecvRequest): boolean;
  /** A peer was lost: fail what waits on it. */
  peerFailed(peer: number, error: MpiError): void;
  /**
   * How many posted receives older than `request` could take a message it accepts, all of them with
   * its own source and tag; -1 when a wildcard receive could, or when `request` is not the newest
   * posted receive of its (source, tag).
   */
  olderRivals(request: RecvRequest): number;
  /** Cancel `request` if it is still posted (it completes as cancelled); false when it matched. */
  cancelPosted(request: RecvRequest): boolean;
  /** Whether a posted receive waits for a message from world rank `peer` (naming it or any source). */
  receivesWaitFor(peer: number): boolean;
  /** Receives posted and not matched yet (each a message this rank awaits). */
  postedReceives(): number;
}
