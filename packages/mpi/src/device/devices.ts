import type { Clock, Endpoint } from '@dapl/core';
import type { MpiParameters } from '../api/mpi-parameters.js';
import type { Device, DeviceHost } from './device.js';
import { RdmaDevice, type RdmaDeviceAttachment } from './rdma/rdma-device.js';

/** A device made before the job starts (so that it can pre-post receives on every new endpoint). */
export interface PreparedDevice extends Device {
  /** Connections' `prepare` hook. */
  readonly prepare: (ep: Endpoint, peer: number) => void;
  attach(attachment: RdmaDeviceAttachment): Promise<void>;
}

/** One device `mpi.device` can select: the `MpiDeviceFactory` contribution point's entries. */
export interface DeviceFactory {
  readonly name: MpiParameters['device'];
  create(params: MpiParameters, host: DeviceHost, clock: Clock): PreparedDevice;
}

/** The rdma device (MVAPICH2 over uDAPL, the MVAPICH2-over-uDAPL paper (Chai et al.)). */
export const RDMA_DEVICE: DeviceFactory = {
  name: 'rdma',
  create: (params, host, clock) => new RdmaDevice(params, host, clock),
};
