import { firstExternalIpv4, routeSourceAddress } from '../util/route-source.js';

/**
 * The address ranks on `hosts` reach the launcher at (its PMI server listens there): the local address
 * of the route to the first host that resolves to a non-loopback address, else this host's first
 * non-loopback IPv4 address, else loopback. `--launcher-address` overrides it, as `-localhost` does
 * Hydra's, for hosts this host cannot resolve.
 */
export async function launcherAddressFor(hosts: readonly string[]): Promise<string> {
  for (const host of hosts) {
    const source = await routeSourceAddress(host);
    if (source !== undefined) return source;
  }
  return firstExternalIpv4() ?? '127.0.0.1';
}
