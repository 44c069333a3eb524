import { Socket } from 'node:net';

/** Bytes the kernel may hand over per read: Node's own default read size. */
export const READ_BUFFER_BYTES = 64 * 1024;

/**
 * A payload with at least this many bytes still to come is read straight from the socket into
 * its destination (`InputTarget.directRoom`): below it, one copy out of the read buffer costs less
 * than the extra read calls a destination-sized read brings.
 */
export const DIRECT_READ_BYTES = 32 * 1024;

/** Where a socket's input goes. */
export interface InputTarget {
  /** Takes one read; false: stop reading (the target has paused the socket and resumes it). */
  input(bytes: Uint8Array): boolean;
  /** Whether the target still holds views of input it was handed (the consumer refused a frame). */
  readonly holdsInput: boolean;
  /**
   * Where the next read may go instead of the read buffer: the destination of the payload being
   * placed, exactly the bytes still to come (so a read never passes the payload's end), when at
   * least `DIRECT_READ_BYTES` are; else undefined. The input such a read yields is handed to
   * `input` as usual and lies where it belongs, so the sink places it without a copy.
   */
  directRoom?(): Uint8Array | undefined;
}

/**
 * One reusable read buffer per socket (Node's `onread`): the kernel copies input into it and the
 * frame decoder places the payload from there, so a read allocates nothing. With 'data' events
 * Node allocates a fresh 64 KiB buffer per read; at gigabytes per second that garbage made V8 run
 * a full collection every ~25 ms on the receiving side, and loopback streams ran at half speed
 * (bench/RESULTS.md). While the target holds views of the buffer, the next read goes into a fresh
 * one, so reading goes on (and still sees the peer leave) until the target stops it. A large
 * payload is read straight into its destination (`directRoom`), not through this buffer.
 */
export class ReadBuffer {
  #bytes = new Uint8Array(READ_BUFFER_BYTES);
  #lent = false;
  /** Set once the connection exists (the socket is created first). */
  target: InputTarget | undefined;
  readonly onread = {
    // Called before the first read and after every callback: where the next read goes.
    buffer: (): Uint8Array => {
      const direct = this.target?.directRoom?.();
      if (direct !== undefined) return direct;
      if (this.#lent) {
        this.#bytes = new Uint8Array(READ_BUFFER_BYTES);
        this.#lent = false;
      }
      return this.#bytes;
    },
    callback: (length: number, bytes: Uint8Array): boolean => {
      const target = this.target!;
      const more = target.input(bytes.subarray(0, length));
      if (target.holdsInput) this.#lent = true;
      return more;
    },
  };
}

interface HandleCarrier {
  _handle: { useUserBuffer?: unknown } | null | undefined;
}

/**
 * Node offers `onread` on sockets it creates for `connect`, not on those a server accepts
 * (nodejs/node#25436): the accepted handle moves into a socket created with the read buffer. The
 * server pauses on connect, so nothing has been read into a Node buffer yet; the accepted wrapper
 * is then destroyed without its handle, which only settles the server's connection count.
 * Undefined when this Node's socket does not have the shape this relies on: the caller keeps the
 * accepted socket and reads through 'data' events.
 */
export function adoptAccepted(accepted: Socket, reader: ReadBuffer, writableHighWaterMark: number): Socket | undefined {
  const carrier = accepted as unknown as HandleCarrier;
  const handle = carrier._handle;
  if (handle === null || handle === undefined || typeof handle.useUserBuffer !== 'function' || accepted.readableLength !== 0) return undefined;
  carrier._handle = null;
  // `handle` is how Node itself wraps an existing handle (child_process, cluster); @types/node omits it.
  const options: object = { handle, onread: reader.onread, readable: true, writable: true, writableHighWaterMark };
  const socket = new Socket(options);
  accepted.destroy();
  return socket;
}
