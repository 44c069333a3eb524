/**
 * DI tokens of `@dapl/mpi` (a symbol paired with a type of the same name, as core's). The
 * bindings are in `mpi-module.ts`; `Mpi.init()` loads that module into the job's container.
 */
import type { DeviceFactory, PreparedDevice } from './device/devices.js';

export { PointToPoint } from './adi/point-to-point.js';

// Declared beside its interface, so the pair is documented once.
export { MpiParameters } from './api/mpi-parameters.js';

/** Contribution point: the devices `mpi.device` selects from, one binding each. */
export const MpiDeviceFactory: unique symbol = Symbol('MpiDeviceFactory');
export type MpiDeviceFactory = DeviceFactory;

/** The rank's device, made before its connections so that it can prepare every endpoint. */
export const MpiDevice: unique symbol = Symbol('MpiDevice');
export type MpiDevice = PreparedDevice;
