/** The stream a PMI launcher gave this rank: opening it (the inherited `PMI_FD` socket, or a TCP connection to `PMI_PORT`), last writes and closing. */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { PmiEnvironment } from './environment.js';

export async function openPmiStream(settings: PmiEnvironment, connectTimeoutMs: number): Promise<net.Socket> {
  if (settings.kind === 'fd') {
    try {
      // A socket, not fs.readSync: once wrapped, the fd is non-blocking (notes/pmi-hydra.md).
      return new net.Socket({ fd: settings.fd, readable: true, writable: true });
    } catch (cause) {
      throw new DatError(DatStatus.CONNECTION_BROKEN, `PMI_FD=${settings.fd} is not a usable socket: ${(cause as Error).message}`, { argument: 'PMI_FD', cause });
    }
  }
  const { host, port } = settings;
  return new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `could not connect to PMI_PORT ${host}:${port} within ${connectTimeoutMs} ms`, { argument: 'PMI_PORT' }));
    }, connectTimeoutMs);
    socket.once('error', (cause) => {
      clearTimeout(timer);
      reject(new DatError(DatStatus.CONNECTION_BROKEN, `could not connect to PMI_PORT ${host}:${port}: ${cause.message}`, { argument: 'PMI_PORT', cause }));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** How long a last write or the closing of a PMI stream may take before we stop waiting for it. */
const FLUSH_WAIT_MS = 1000;

/** Writes `text`; resolves once it is flushed, or after a second (a dead peer must not hold the rank). */
export function writeFlushed(stream: Duplex, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, FLUSH_WAIT_MS);
    stream.write(text, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Ends `stream` (flushing what is queued, for at most a second), then destroys it. */
export async function endPmiStream(stream: Duplex): Promise<void> {
  if (stream.destroyed) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, FLUSH_WAIT_MS);
    stream.end(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  stream.destroy();
}
