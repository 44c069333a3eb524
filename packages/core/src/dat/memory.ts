import type { ProtectionZone } from './pz.js';

/** DAT_MEM_PRIV_FLAGS: what a registration or binding allows. Combine with `|`. */
export const MemAccess = {
  NONE: 0x00,
  LOCAL_READ: 0x01,
  REMOTE_READ: 0x02,
  LOCAL_WRITE: 0x10,
  REMOTE_WRITE: 0x20,
  /** Local read and write: the usual registration for buffers that are only sent from or received into. */
  LOCAL: 0x11,
  REMOTE: 0x22,
  ALL: 0x33,
} as const;
export type MemAccess = number;

/** Memory a caller can register: any typed array or Buffer view, or a whole (Shared)ArrayBuffer. */
export type RegisterableMemory = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/** A local memory region: a registered view of caller memory (no copy is made). */
export interface Lmr {
  readonly pz: ProtectionZone;
  /** The registered bytes, a view over the caller's memory. */
  readonly bytes: Uint8Array;
  readonly length: number;
  readonly access: MemAccess;
  readonly freed: boolean;
  /** Deregister. Fails with INVALID_STATE while an RMR is bound to it. */
  free(): void;
}

/**
 * One contiguous piece of registered memory: DAT_LMR_TRIPLET in TypeScript form.
 * An iov (scatter/gather list) is an array of them.
 */
export interface LmrTriplet {
  readonly lmr: Lmr;
  readonly offset: number;
  readonly length: number;
}
/** A scatter-gather list: the registered pieces a transfer reads or writes, in order. */
export type Iov = readonly LmrTriplet[];

/**
 * What a peer needs to access exposed memory: plain data, safe to send over the wire.
 * `targetOffset` is an offset in the bound LMR (the role of DAT's virtual address): the
 * window is `[bind offset, bind offset + bound length)`, and an access names any sub-range.
 */
export interface RmrTriplet {
  readonly rmrContext: bigint;
  readonly targetOffset: number;
  readonly length: number;
}

/** A remote memory region: a window on an LMR that peers may access with the bound rights. */
export interface Rmr {
  readonly pz: ProtectionZone;
  /** The current binding, or undefined while unbound. */
  readonly triplet: RmrTriplet | undefined;
  readonly freed: boolean;
  /**
   * Expose `[offset, offset + length)` of `lmr` with `access` (REMOTE_READ and/or REMOTE_WRITE,
   * which the LMR must also allow). Rebinding issues a fresh context; the old one stops working.
   */
  bind(lmr: Lmr, offset: number, length: number, access: MemAccess): RmrTriplet;
  /** Withdraw the current binding: its context stops working; the RMR can be bound again. */
  unbind(): void;
  /** Release the RMR, unbinding it first. */
  free(): void;
}
