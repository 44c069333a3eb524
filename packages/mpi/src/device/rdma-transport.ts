import type { RmrTriplet } from '@dapl/core';
import type { MpiError } from '../api/errors.js';

/** Memory exposed to every peer for remote read and write through one RMR (an RMA window). */
export interface ExposedMemory {
  readonly triplet: RmrTriplet;
  /** Unbind the RMR and deregister (the window is freed). */
  close(): void;
}

/** Called once when an RDMA transfer has completed at both ends, or has failed. */
export type RdmaDone = (error: MpiError | undefined) => void;

/**
 * What a device offers one-sided communication when its transport reaches peers' memory directly
 * (the rdma device over uDAPL): RDMA write and read between registered local memory and a peer's
 * RMR triplet, completions on the device's own event dispatchers. A device without it (or a
 * provider without RDMA read, for `read`) leaves RMA to its messages.
 */
export interface RdmaTransport {
  /** Whether `read` works (the provider has RDMA read). */
  readonly canRead: boolean;
  /** Register `bytes` and bind one RMR over them with remote read and write rights. */
  expose(bytes: Uint8Array): ExposedMemory;
  /**
   * Write `bytes` (any memory: registered on the fly through the device's cache) to `remote` of
   * world rank `peer`; `done` runs once the target has the data (remote completion).
   */
  write(peer: number, bytes: Uint8Array, remote: RmrTriplet, done: RdmaDone): void;
  /**
   * Whether a write posted to world rank `peer` now lands there before any message the device sends
   * to `peer` after it: true when both go on one connection that keeps their order, as a reliable
   * connection does for RDMA writes followed by sends or writes (InfiniBand Architecture
   * Specification Vol. 1, §9.5 "Transaction ordering"). A write waiting for its connection is not ordered.
   */
  writesPrecedeMessages(peer: number): boolean;
  /** Read `remote` of world rank `peer` into `bytes`; `done` runs once the data is here. */
  read(peer: number, bytes: Uint8Array, remote: RmrTriplet, done: RdmaDone): void;
}
