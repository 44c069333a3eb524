import { EndpointPreparer, Runtime, SharedReceiveQueueMaker } from '@dapl/core';
import { ContainerModule } from 'inversify';
import { ErrorClass, MpiError } from './api/errors.js';
import { AM_DEVICE, CHANNEL_DEVICE, RDMA_DEVICE } from './device/devices.js';
import { MpiDevice, MpiDeviceFactory, MpiParameters, PointToPoint } from './tokens.js';

/**
 * MPI's bindings, loaded into the job's container by `Mpi.init()`: its parameters, the ADI's
 * point-to-point engine, the device `mpi.device` names (from the `MpiDeviceFactory` contribution
 * point), and core's `EndpointPreparer` hook, through which the device pre-posts its receive
 * buffers on every endpoint before it connects.
 */
export function createMpiModule(parameters: MpiParameters): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<MpiParameters>(MpiParameters).toConstantValue(parameters);
    bind<MpiDeviceFactory>(MpiDeviceFactory).toConstantValue(RDMA_DEVICE);
    bind<MpiDeviceFactory>(MpiDeviceFactory).toConstantValue(CHANNEL_DEVICE);
    bind<MpiDeviceFactory>(MpiDeviceFactory).toConstantValue(AM_DEVICE);
    bind(PointToPoint)
      .toDynamicValue((ctx) => new PointToPoint(ctx.get<Runtime>(Runtime).clock, parameters.matching))
      .inSingletonScope();
    bind<MpiDevice>(MpiDevice)
      .toDynamicValue((ctx) => {
        const factory = ctx.getAll<MpiDeviceFactory>(MpiDeviceFactory).find((f) => f.name === parameters.device);
        if (factory === undefined) throw new MpiError(ErrorClass.ERR_ARG, `mpi.device '${parameters.device}' is not a device this job has`, { argument: 'mpi.device' });
        const p2p = ctx.get(PointToPoint);
        const device = factory.create(parameters, p2p, ctx.get<Runtime>(Runtime).clock);
        p2p.device = device;
        return device;
      })
      .inSingletonScope();
    bind<EndpointPreparer>(EndpointPreparer)
      .toDynamicValue((ctx) => ctx.get<MpiDevice>(MpiDevice).prepare)
      .inSingletonScope();
    bind<SharedReceiveQueueMaker>(SharedReceiveQueueMaker)
      .toDynamicValue((ctx): SharedReceiveQueueMaker => {
        const device = ctx.get<MpiDevice>(MpiDevice);
        return (ia, pz) => device.sharedReceiveQueue?.(ia, pz);
      })
      .inSingletonScope();
  });
}
