import { ErrorClass, MpiError } from '../api/errors.js';
import { Status } from '../api/status.js';
import type { PostedHandle } from './matching-engine.js';
import { RequestCore } from './request-core.js';
import type { BufferSpan } from './transfer.js';

/** How a send must behave (the MPI-LAPI paper (Banikazemi et al.) table 2 maps these to protocols). */
export enum SendMode {
  STANDARD = 'standard',
  SYNCHRONOUS = 'synchronous',
  READY = 'ready',
  BUFFERED = 'buffered',
}

/** A send in flight: the envelope, the data, and the device's state for it. */
export class SendRequest extends RequestCore {
  /** Table id while a peer may name it (ACK, FIN, CTS); 0 otherwise. */
  id = 0;
  /** Device state: the RMR exposing the data (rendezvous by read), a packed copy, pending chunks. */
  deviceState: unknown = undefined;

  constructor(
    /** World rank of the destination. */
    readonly peer: number,
    readonly context: number,
    /** The sender's rank in the communicator (what the receiver matches on). */
    readonly source: number,
    readonly tag: number,
    readonly data: BufferSpan,
    readonly mode: SendMode,
    /** The caller waits for this send alone before going on (MPI_Send): the device may copy the data and complete it at once. */
    readonly blocking = false,
  ) {
    super();
  }
}

/** A posted receive. */
export class RecvRequest extends RequestCore {
  id = 0;
  /** The matching engine's handle while posted (for cancel). */
  handle: PostedHandle | undefined = undefined;
  /** Matched a ready-mode message that arrived before it was posted (an erroneous program). */
  readyViolation = false;
  deviceState: unknown = undefined;

  constructor(
    readonly context: number,
    readonly source: number,
    readonly tag: number,
    readonly data: BufferSpan,
    /** World rank of `source`; undefined for ANY_SOURCE. */
    readonly peer: number | undefined = undefined,
  ) {
    super();
  }

  /** The data of a message of `size` bytes from `source` with `tag` is in place (cut to the capacity if larger). */
  finish(source: number, tag: number, size: number): void {
    const status = new Status(source, tag, size, false, this.data.program.size);
    if (size > this.data.size) {
      return this.fail(
        new MpiError(ErrorClass.ERR_TRUNCATE, `a message of ${size} bytes from rank ${source} with tag ${tag} does not fit the receive buffer of ${this.data.size} bytes; status.count has the message's size`, {
          argument: 'buf',
          status,
        }),
      );
    }
    if (this.readyViolation) {
      return this.fail(
        new MpiError(ErrorClass.ERR_OTHER, `a ready-mode message from rank ${source} with tag ${tag} arrived before this receive was posted (MPI requires the receive first); its data was delivered`, {
          status,
        }),
      );
    }
    this.complete(status);
  }
}

/**
 * A message that arrived (eager data or a rendezvous request), matched or waiting in the unexpected
 * queue. `payload` views the device's receive slot until the device copies it out (`slot` cleared).
 */
export interface IncomingMessage {
  /** World rank it came from. */
  readonly peer: number;
  readonly context: number;
  readonly source: number;
  readonly tag: number;
  readonly size: number;
  /** Eager data, or undefined for a rendezvous request. */
  payload: Uint8Array | undefined;
  readonly synchronous: boolean;
  readonly ready: boolean;
  /** The device's record for it (slot, RMR of the sender's data, the sender's request id). */
  readonly deviceState: unknown;
}
