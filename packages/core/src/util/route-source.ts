import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The local address the kernel would send from to reach `host` (a name or an address), undefined when
 * it does not resolve, has no route, or is loopback on either end. Asked by connecting a UDP socket,
 * which sends nothing. How the launcher and the tcp provider find "the interface that reaches the
 * other hosts".
 */
export async function routeSourceAddress(host: string): Promise<string | undefined> {
  let address: string;
  try {
    address = isIP(host) !== 0 ? host : (await lookup(host)).address;
  } catch {
    return undefined;
  }
  if (isLoopback(address)) return undefined;
  const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
  try {
    const local = await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, address, () => resolve(socket.address().address));
    });
    return isLoopback(local) ? undefined : local;
  } catch {
    return undefined;
  } finally {
    socket.close();
  }
}

/** This host's first non-loopback IPv4 address (a host with one network, such as a namespace host, has one), if any. */
export function firstExternalIpv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flatMap((addrs) => addrs ?? [])
    .find((a) => !a.internal && a.family === 'IPv4')?.address;
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}
