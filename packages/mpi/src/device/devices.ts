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

export type DeviceFactory = (params: MpiParameters, host: DeviceHost, clock: Clock) => PreparedDevice;

/** The devices `mpi.device` selects from: a contribution point, one entry per device. */
export const DEVICES: Readonly<Record<MpiParameters['device'], DeviceFactory>> = {
  rdma: (params, host, clock) => new RdmaDevice(params, host, clock),
};
