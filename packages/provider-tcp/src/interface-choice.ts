import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { DatError, DatStatus } from '@dapl/core';

/** `tcp.interface`'s default: choose from where the job's ranks run. */
export const AUTO_INTERFACE = 'auto';

export interface InterfaceHints {
  /** The job's ranks run on more than one host (openIa's `spansHosts`). */
  readonly spansHosts?: boolean;
  /** An address of the launcher's host (openIa's `launcherAddress`). */
  readonly launcherAddress?: string;
}

/**
 * The address an IA listens on: `configured` unless it is `auto`; for `auto`, loopback while every
 * rank shares this host, else the address of the interface that reaches the launcher's host (the
 * kernel's route to it, asked by connecting a UDP socket, which sends nothing), else this host's
 * first non-loopback IPv4 address (a host with one network, such as a namespace host), else loopback.
 */
export async function chooseInterface(configured: string, hints: InterfaceHints): Promise<string> {
  if (hints.spansHosts !== undefined && typeof hints.spansHosts !== 'boolean') {
    throw new DatError(DatStatus.INVALID_PARAMETER, `options.spansHosts must be a boolean, got ${typeof hints.spansHosts}`, { argument: 'options.spansHosts' });
  }
  if (hints.launcherAddress !== undefined && (typeof hints.launcherAddress !== 'string' || hints.launcherAddress === '')) {
    throw new DatError(DatStatus.INVALID_PARAMETER, 'options.launcherAddress must be a non-empty host name or address', { argument: 'options.launcherAddress' });
  }
  if (configured !== AUTO_INTERFACE) return configured;
  if (hints.spansHosts !== true) return '127.0.0.1';
  const viaLauncher = hints.launcherAddress === undefined ? undefined : await routeSource(hints.launcherAddress);
  return viaLauncher ?? firstExternalAddress() ?? '127.0.0.1';
}

/** The local address the kernel would send from to reach `host`, if it is not loopback. */
async function routeSource(host: string): Promise<string | undefined> {
  let address: string;
  try {
    address = isIP(host) !== 0 ? host : (await lookup(host)).address;
  } catch {
    return undefined;
  }
  const family = isIP(address) === 6 ? 'udp6' : 'udp4';
  const socket = createSocket(family);
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

function firstExternalAddress(): string | undefined {
  const all = Object.values(networkInterfaces()).flatMap((addrs) => addrs ?? []);
  return (all.find((a) => !a.internal && a.family === 'IPv4') ?? all.find((a) => !a.internal && a.family === 'IPv6' && !a.address.startsWith('fe80')))?.address;
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}
