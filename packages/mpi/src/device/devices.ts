import type { Clock, Connections, Endpoint, InterfaceAdapter, Runtime, SharedReceiveQueueMaker } from '@dapl/core';
import type { Logger } from 'pino';
import type { MpiParameters } from '../api/mpi-parameters.js';
import type { Device, DeviceHost } from './device.js';
import { AmDevice } from './am/am-device.js';
import { ChannelDevice } from './channel/channel-device.js';
import { RdmaDevice } from './rdma/rdma-device.js';

/** What a device is bound to once the job has started. */
export interface DeviceAttachment {
  readonly ia: InterfaceAdapter;
  readonly connections: Connections;
  readonly runtime: Runtime;
  readonly logger: Logger;
}

/** A device made before the job starts (so that it can pre-post receives on every new endpoint). */
export interface PreparedDevice extends Device {
  /** Connections' `prepare` hook. */
  readonly prepare: (ep: Endpoint, peer: number) => void;
  /** Connections' `sharedReceiveQueue` hook, for a device that takes its receives from one queue. */
  readonly sharedReceiveQueue?: SharedReceiveQueueMaker;
  attach(attachment: DeviceAttachment): Promise<void>;
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

/** The channel device (MPICH's Channel Interface, Selvarajan's MPICH on MP_Lite): runs on every provider. */
export const CHANNEL_DEVICE: DeviceFactory = {
  name: 'channel',
  create: (params, host, clock) => new ChannelDevice(params, host, clock),
};

/** The am device (MPI-LAPI): providers with the active-messages extension. */
export const AM_DEVICE: DeviceFactory = {
  name: 'am',
  create: (params, host, clock) => new AmDevice(params, host, clock),
};
