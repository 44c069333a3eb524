import type { DtoCapability, ExtensionName, ParameterValue, ProviderCapabilities } from '@dapl/core';
import type { MpiParameters } from '../api/mpi-parameters.js';

/** What each device needs of the provider, as data (checked by `dapl run` before any rank starts, and shown by `dapl info`). */
export const DEVICE_REQUIREMENTS: Readonly<Record<MpiParameters['device'], { readonly dto: readonly DtoCapability[]; readonly extensions: readonly ExtensionName[] }>> = {
  /** Doorbells and rendezvous by RDMA write with immediate. */
  rdma: { dto: ['rdma-write', 'rdma-write-immediate'], extensions: [] },
  /** DAT send/recv only. */
  channel: { dto: [], extensions: [] },
  /** LAPI's Amsend, header handlers and counters. */
  am: { dto: [], extensions: ['active-messages'] },
};

/** What a device needs that a provider with `capabilities` lacks (empty: it can run there). */
export function missingFor(device: MpiParameters['device'], capabilities: ProviderCapabilities): string[] {
  const need = DEVICE_REQUIREMENTS[device];
  return [
    ...need.extensions.filter((e) => !capabilities.extensions.includes(e)).map((e) => `the ${e} extension`),
    ...need.dto.filter((d) => !capabilities.dto.includes(d)).map((d) => `${d} DTOs`),
  ];
}

/** `dapl run`'s check of the `mpi` section against the provider. */
export function checkDevice(values: Readonly<Record<string, ParameterValue>>, provider: string, capabilities: ProviderCapabilities): string | undefined {
  const device = values.device as MpiParameters['device'];
  const missing = missingFor(device, capabilities);
  if (missing.length === 0) return undefined;
  return `mpi.device '${device}' needs ${missing.join(' and ')}, which provider ${provider} does not have (it can run: ${devicesFor(capabilities).value})`;
}

/** `dapl info`'s line for a provider: the devices it can run. */
export function devicesFor(capabilities: ProviderCapabilities): { label: string; value: string } {
  const devices = (Object.keys(DEVICE_REQUIREMENTS) as MpiParameters['device'][]).filter((d) => missingFor(d, capabilities).length === 0);
  return { label: 'mpi devices', value: devices.join(', ') };
}
