import { createHash } from 'node:crypto';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { THREAD_EXIT_CHANNEL, type ThreadExitNotice } from '@dapl/core';

/** A connection request, from the client's IA to the server's. */
export interface RequestMessage {
  readonly t: 'request';
  readonly to: string;
  readonly from: string;
  readonly id: number;
  readonly connQual: number;
  readonly privateData: Uint8Array;
  readonly memory: SharedArrayBuffer;
  /** Both regions of the connection's peer memory; none when the client's IA offers none. */
  readonly peerMemory: SharedArrayBuffer | undefined;
  readonly doorbell: SharedArrayBuffer;
  /** The client's window directory, and the zone of its endpoint. */
  readonly directory: SharedArrayBuffer;
  readonly zone: number;
}

/** The server's answers, and the client's last word on an accepted request. */
export type ControlMessage =
  | RequestMessage
  | { readonly t: 'refuse'; readonly to: string; readonly id: number; readonly reason: string }
  | { readonly t: 'reject'; readonly to: string; readonly id: number; readonly privateData: Uint8Array }
  | {
      readonly t: 'accept';
      readonly to: string;
      readonly id: number;
      readonly server: number;
      readonly privateData: Uint8Array;
      readonly doorbell: SharedArrayBuffer;
      readonly directory: SharedArrayBuffer;
      readonly zone: number;
    }
  | { readonly t: 'ready'; readonly to: string; readonly server: number }
  | { readonly t: 'abandon'; readonly to: string; readonly server: number }
  /** A memory of `from` that holds RMR windows, for its peers to reach directly. */
  | { readonly t: 'memory'; readonly to: '*'; readonly from: string; readonly id: number; readonly memory: SharedArrayBuffer }
  /** An IA vanished without closing its connections (a crash, as the launcher reports a thread's end). */
  | { readonly t: 'lost'; readonly to: '*'; readonly address: string };

export interface ControlListener {
  onMessage(message: ControlMessage): void;
  /** The thread with this id ended. */
  onThreadExit(threadId: number): void;
}

/**
 * The control plane of the IAs of one job in this process: a BroadcastChannel named after the job
 * key (an IA of another job hears nothing, as a tcp server drops an unauthenticated client), and
 * the launcher's notices of ended threads. Only connection set-up crosses it (each message costs
 * a thread wake-up, tens of µs); data moves through the rings.
 */
export class ShmControl {
  readonly #channel: BroadcastChannel;
  readonly #exits: BroadcastChannel;
  readonly #deliver: (message: ControlMessage) => void;
  #closed = false;

  constructor(
    jobKey: Uint8Array,
    readonly address: string,
    listener: ControlListener,
  ) {
    this.#channel = new BroadcastChannel(channelName(jobKey));
    this.#deliver = (message) => {
      if (!this.#closed && (message.to === address || message.to === '*')) listener.onMessage(message);
    };
    this.#channel.onmessage = (event) => this.#deliver((event as { readonly data: ControlMessage }).data);
    this.#exits = new BroadcastChannel(THREAD_EXIT_CHANNEL);
    this.#exits.onmessage = (event) => listener.onThreadExit((event as { readonly data: ThreadExitNotice }).data.threadId);
  }

  send(message: ControlMessage): void {
    // A channel does not hear its own messages: a connection to this same IA is answered here.
    if (message.to === this.address) setImmediate(() => this.#deliver(message));
    else this.#channel.postMessage(message);
  }

  close(): void {
    this.#closed = true;
    this.#channel.close();
    this.#exits.close();
  }
}

function channelName(jobKey: Uint8Array): string {
  return `dapl:shm:${createHash('sha256').update(jobKey).digest('hex').slice(0, 32)}`;
}

let nextIa = 0;

/** A fresh IA address: the process, the thread (whose end breaks its connections) and a counter. */
export function newAddress(): string {
  return `shm:${process.pid}.${threadId}.${nextIa++}`;
}

/** The thread an address of `newAddress` lives in, or -1. */
export function threadOf(address: string): number {
  const match = /^shm:\d+\.(\d+)\.\d+$/.exec(address);
  return match === null ? -1 : Number(match[1]);
}
