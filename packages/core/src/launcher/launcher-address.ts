import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The address ranks on `hosts` reach the launcher at (its PMI server listens there): the local address
 * of the route to the first host that resolves to a non-loopback address (asked by connecting a UDP
 * socket, which sends nothing), else this host's first non-loopback IPv4 address, else loopback.
 * `--launcher-address` overrides it, as `-localhost` does Hydra's, for hosts this host cannot resolve.
 */
export async function launcherAddressFor(hosts: readonly string[]): Promise<string> {
  for (const host of hosts) {
    const source = await routeSource(host);
    if (source !== undefined) return source;
  }
  const external = Object.values(networkInterfaces())
    .flatMap((a) => a ?? [])
    .find((a) => !a.internal && a.family === 'IPv4');
  return external?.address ?? '127.0.0.1';
}

async function routeSource(host: string): Promise<string | undefined> {
  let address: string;
  try {
    address = isIP(host) !== 0 ? host : (await lookup(host)).address;
  } catch {
    return undefined;
  }
  if (address.startsWith('127.') || address === '::1') return undefined;
  const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, address, () => resolve(socket.address().address));
    });
  } catch {
    return undefined;
  } finally {
    socket.close();
  }
}
