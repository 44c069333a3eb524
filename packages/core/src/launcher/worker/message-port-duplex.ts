import { Duplex } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';

/** Posted after the last chunk: the writer ended its side (a socket's FIN). */
const END = null;

/**
 * A byte stream over a MessagePort, so that the PMI client and server, written for sockets, speak
 * unchanged between a worker-thread rank and the launcher's main thread. The port closing (the
 * worker ended, or the other side destroyed its stream) ends and closes the stream.
 */
export function messagePortDuplex(port: MessagePort): Duplex {
  let readableEnded = false;
  const endReadable = (): void => {
    if (readableEnded) return;
    readableEnded = true;
    duplex.push(null);
  };
  const duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      port.postMessage(chunk);
      callback();
    },
    final(callback) {
      port.postMessage(END);
      callback();
    },
    destroy(error, callback) {
      port.close();
      callback(error);
    },
  });
  port.on('message', (message: Uint8Array | null) => {
    if (message === END) endReadable();
    else if (!readableEnded) duplex.push(Buffer.from(message.buffer, message.byteOffset, message.byteLength));
  });
  port.once('close', () => {
    endReadable();
    // After 'end' has had its turn: the reader sees the end of the conversation before the close.
    setImmediate(() => duplex.destroy());
  });
  return duplex;
}
