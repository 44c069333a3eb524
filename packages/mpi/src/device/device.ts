import type { MpiError } from '../api/errors.js';
import type { IncomingMessage, RecvRequest, SendRequest } from '../adi/requests.js';

/**
 * What the ADI asks of a device (MPICH's ADI3 ↔ CH3 boundary, reduced). The ADI owns matching and
 * request lifetimes; the device moves bytes with whatever protocol its transport is best at.
 */
export interface Device {
  readonly name: string;
  /** Start a send; the device completes or fails `request`. */
  send(request: SendRequest): void;
  /** `message` matched `request`: move the data into it and complete both ends. */
  deliver(message: IncomingMessage, request: RecvRequest): void;
  /** `message` matched nothing and stays queued: the device may copy it out of transport memory. */
  keep(message: IncomingMessage): void;
  /**
   * A receive (or probe) from world rank `peer` (undefined: any source) was posted and matched
   * nothing: release whatever holds that peer's messages back, so that it can arrive.
   */
  receivePosted(peer: number | undefined): void;
  /** Drop a queued message for good (its communicator was freed). */
  discard(message: IncomingMessage): void;
  /** Settles when no send of this rank is still in flight. */
  drain(): Promise<void>;
  /** Which protocol serves which message sizes, one line each. */
  protocolInfo(): string[];
  /** Counters for tests and tools (bytes held for unexpected messages, protocol use …). */
  counters(): Readonly<Record<string, number>>;
  close(): Promise<void>;
}

/** What a device calls back into (the ADI). */
export interface DeviceHost {
  /** A message arrived from a peer, in the order that peer sent it. */
  arrive(message: IncomingMessage): void;
  /** A peer was lost: fail what waits on it. */
  peerFailed(peer: number, error: MpiError): void;
}
