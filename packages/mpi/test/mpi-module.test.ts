import { DaplConfig, EndpointPreparer, Runtime, SingletonRuntime, createContainer } from '@dapl/core';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { MPI_PARAMETERS, type MpiParameters as Parameters } from '../src/api/mpi-parameters.js';
import { ErrorClass, MpiError } from '../src/api/errors.js';
import type { DeviceFactory } from '../src/device/devices.js';
import { AmDevice } from '../src/device/am/am-device.js';
import { ChannelDevice } from '../src/device/channel/channel-device.js';
import { RdmaDevice } from '../src/device/rdma/rdma-device.js';
import { createMpiModule } from '../src/mpi-module.js';
import { MpiDevice, MpiDeviceFactory, MpiParameters, PointToPoint } from '../src/tokens.js';

const defaults = Object.fromEntries(MPI_PARAMETERS.map((p) => [p.name, p.default])) as unknown as Parameters;

async function container(parameters: Parameters, ...extra: ContainerModule[]) {
  return createContainer(new DaplConfig({ env: {} }), { runtime: new SingletonRuntime({ exit: () => undefined }), modules: [createMpiModule(parameters), ...extra] });
}

describe('createMpiModule', () => {
  it('binds the parameters, one point-to-point engine wired to the selected device, and the device\'s prepare as an EndpointPreparer', async () => {
    const c = await container(defaults);
    expect(c.get(MpiParameters)).toBe(defaults);
    const device = c.get<MpiDevice>(MpiDevice);
    expect(device).toBeInstanceOf(RdmaDevice);
    expect(c.get<MpiDevice>(MpiDevice)).toBe(device); // one per rank
    const p2p = c.get(PointToPoint);
    expect(p2p.device).toBe(device);
    expect(c.getAll<EndpointPreparer>(EndpointPreparer)).toEqual([device.prepare]);
    expect(c.get(Runtime)).toBeInstanceOf(SingletonRuntime);
  });

  it.each([
    ['channel', ChannelDevice],
    ['am', AmDevice],
  ] as const)('mpi.device %s selects its device by name from the contribution point', async (name, type) => {
    const c = await container({ ...defaults, device: name });
    const device = c.get<MpiDevice>(MpiDevice);
    expect(device).toBeInstanceOf(type);
    expect(device.name).toBe(name);
    expect(c.get(PointToPoint).device).toBe(device);
  });

  it('takes devices from the MpiDeviceFactory contribution point, and names an unknown one', async () => {
    const made: string[] = [];
    const other: DeviceFactory = { name: 'other' as Parameters['device'], create: (p, host, clock) => (made.push('other'), new RdmaDevice(p, host, clock)) };
    const c = await container({ ...defaults, device: 'other' as Parameters['device'] }, new ContainerModule(({ bind }) => void bind<MpiDeviceFactory>(MpiDeviceFactory).toConstantValue(other)));
    c.get<MpiDevice>(MpiDevice);
    expect(made).toEqual(['other']);

    const none = await container({ ...defaults, device: 'missing' as Parameters['device'] });
    let error: unknown;
    try {
      none.get<MpiDevice>(MpiDevice);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MpiError);
    expect((error as MpiError).errorClass).toBe(ErrorClass.ERR_ARG);
    expect((error as MpiError).message).toContain("mpi.device 'missing'");
  });
});
