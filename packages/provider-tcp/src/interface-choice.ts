import { DatError, DatStatus } from '@dapl/core';
import { firstExternalIpv4, routeSourceAddress } from '@dapl/core/provider-kit';

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
  const viaLauncher = hints.launcherAddress === undefined ? undefined : await routeSourceAddress(hints.launcherAddress);
  return viaLauncher ?? firstExternalIpv4() ?? '127.0.0.1';
}
