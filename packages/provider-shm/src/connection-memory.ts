import type { PeerRegions } from '@dapl/core';
import { SpscRing } from './ring.js';

/** Int32 indices of the two sides' closed flags, a cache line apart. */
const CLOSED = [0, 16] as const;
const STATE_BYTES = 128;

export const enum Side {
  CLIENT = 0,
  SERVER = 1,
}

/**
 * The shared memory of one connection: both sides' closed flags, then the client-to-server ring,
 * then the server-to-client ring. The client allocates it and hands it over in its request.
 */
export class ConnectionMemory {
  readonly state: Int32Array;
  /** The ring this side writes. */
  readonly out: SpscRing;
  /** The ring this side reads. */
  readonly in: SpscRing;

  constructor(
    readonly buffer: SharedArrayBuffer,
    readonly capacity: number,
    readonly side: Side,
  ) {
    this.state = new Int32Array(buffer, 0, STATE_BYTES / 4);
    const toServer = new SpscRing(buffer, STATE_BYTES, capacity);
    const toClient = new SpscRing(buffer, STATE_BYTES + SpscRing.bytes(capacity), capacity);
    this.out = side === Side.CLIENT ? toServer : toClient;
    this.in = side === Side.CLIENT ? toClient : toServer;
  }

  static allocate(capacity: number): SharedArrayBuffer {
    return new SharedArrayBuffer(STATE_BYTES + 2 * SpscRing.bytes(capacity));
  }

  /** The capacity of the rings in a buffer `allocate` made. */
  static capacityOf(buffer: SharedArrayBuffer): number {
    return (buffer.byteLength - STATE_BYTES) / 2 - SpscRing.bytes(0);
  }

  /** This side is done with the connection (disconnect, free): the peer sees it on its next poll. */
  close(): void {
    Atomics.store(this.state, CLOSED[this.side], 1);
  }

  get peerClosed(): boolean {
    return Atomics.load(this.state, CLOSED[1 - this.side]) !== 0;
  }
}

/**
 * A connection's peer memory (the 'peer-memory' extension): the client's outbound region, then the
 * server's, `bytes` each. The client allocates it beside the rings and hands it over in its request;
 * none when `bytes` is 0.
 */
export function allocatePeerMemory(bytes: number): SharedArrayBuffer | undefined {
  return bytes === 0 ? undefined : new SharedArrayBuffer(2 * bytes);
}

/** One side's views of a buffer `allocatePeerMemory` made: its outbound half and the peer's. */
export function peerRegions(buffer: SharedArrayBuffer, side: Side): PeerRegions {
  const bytes = buffer.byteLength / 2;
  const toServer = new Uint8Array(buffer, 0, bytes);
  const toClient = new Uint8Array(buffer, bytes, bytes);
  return Object.freeze(side === Side.CLIENT ? { outbound: toServer, inbound: toClient } : { outbound: toClient, inbound: toServer });
}
