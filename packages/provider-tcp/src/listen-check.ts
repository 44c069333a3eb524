import { createServer } from 'node:net';
import { DatError, DatStatus } from '@dapl/core';

/**
 * Errors that say the address is not one this host can listen on (or a name that does not resolve),
 * not a passing fault: EAI_AGAIN (DNS unavailable for now) is not among them.
 */
const NOT_LOCAL = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_NONAME', 'EAFNOSUPPORT', 'EINVAL']);

/**
 * Listen on `iface` on an ephemeral port and close at once, so that an interface this host does
 * not have is refused when the IA opens (`dapl info` then exits 3), naming `tcp.interface`, rather
 * than by every job's first PSP. MPICH's sock channel binds at init for the same reason.
 */
export async function requireListenable(iface: string): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: iface, port: 0, exclusive: true }, () => resolve());
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_LOCAL.has(code)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `tcp.interface ${JSON.stringify(iface)} is not an address of this host: cannot listen on it (${code})`, { argument: 'tcp.interface', cause: error });
    }
    throw new DatError(DatStatus.INSUFFICIENT_RESOURCES, `cannot listen on tcp.interface ${JSON.stringify(iface)}: ${(error as Error).message}`, { argument: 'tcp.interface', cause: error });
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
