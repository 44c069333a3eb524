import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import { readPmiEnvironment } from '../src/runtime/pmi/environment.js';
import { PmiRuntime } from '../src/runtime/pmi/pmi-runtime.js';
import { PmiServer } from '../src/runtime/pmi/pmi-server.js';
import { runtimeFromEnvironment } from '../src/runtime/runtime-from-environment.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';

describe('readPmiEnvironment', () => {
  it('reads PMI_FD/PMI_RANK/PMI_SIZE and PMI_PORT/PMI_ID; PMI_FD wins', () => {
    expect(readPmiEnvironment({})).toBeUndefined();
    expect(readPmiEnvironment({ PMI_FD: '5', PMI_RANK: '2', PMI_SIZE: '4' })).toEqual({ kind: 'fd', fd: 5, rank: 2, size: 4 });
    expect(readPmiEnvironment({ PMI_PORT: 'node7:40123', PMI_ID: '3' })).toEqual({ kind: 'port', host: 'node7', port: 40123, pmiId: 3 });
    expect(readPmiEnvironment({ PMI_PORT: '[::1]:40123', PMI_ID: '0' })).toEqual({ kind: 'port', host: '::1', port: 40123, pmiId: 0 });
    expect(readPmiEnvironment({ PMI_FD: '5', PMI_RANK: '0', PMI_SIZE: '1', PMI_PORT: 'h:1', PMI_ID: '0' })?.kind).toBe('fd');
  });

  it.each([
    [{ PMI_FD: 'x', PMI_RANK: '0', PMI_SIZE: '1' }, 'PMI_FD'],
    [{ PMI_FD: '-1', PMI_RANK: '0', PMI_SIZE: '1' }, 'PMI_FD'],
    [{ PMI_FD: '', PMI_RANK: '0', PMI_SIZE: '1' }, 'PMI_FD'],
    [{ PMI_FD: '5', PMI_SIZE: '1' }, 'PMI_RANK'],
    [{ PMI_FD: '5', PMI_RANK: '0' }, 'PMI_SIZE'],
    [{ PMI_FD: '5', PMI_RANK: '4', PMI_SIZE: '4' }, 'PMI_RANK'],
    [{ PMI_FD: '5', PMI_RANK: '0', PMI_SIZE: '0' }, 'PMI_SIZE'],
    [{ PMI_FD: '5', PMI_RANK: '1.5', PMI_SIZE: '4' }, 'PMI_RANK'],
    [{ PMI_PORT: 'nohost', PMI_ID: '0' }, 'PMI_PORT'],
    [{ PMI_PORT: 'h:0', PMI_ID: '0' }, 'PMI_PORT'],
    [{ PMI_PORT: 'h:70000', PMI_ID: '0' }, 'PMI_PORT'],
    [{ PMI_PORT: ':80', PMI_ID: '0' }, 'PMI_PORT'],
    [{ PMI_PORT: 'h:80' }, 'PMI_ID'],
    [{ PMI_PORT: 'h:80', PMI_ID: 'one' }, 'PMI_ID'],
  ])('refuses %j naming %s', (env, variable) => {
    let error: unknown;
    try {
      readPmiEnvironment(env);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: variable });
    expect((error as Error).message).toContain(variable);
  });
});

describe('runtimeFromEnvironment', () => {
  let server: PmiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is a SingletonRuntime without PMI variables', async () => {
    const runtime = await runtimeFromEnvironment({ PATH: '/bin' });
    expect(runtime).toBeInstanceOf(SingletonRuntime);
    expect([runtime.rank, runtime.size]).toEqual([0, 1]);
  });

  it('is a PmiRuntime when PMI_PORT is set', async () => {
    server = new PmiServer({ size: 1 });
    const port = await server.listen();
    const runtime = await runtimeFromEnvironment({ PMI_PORT: `127.0.0.1:${port}`, PMI_ID: '0' });
    expect(runtime).toBeInstanceOf(PmiRuntime);
    await runtime.put('k', 'v');
    await runtime.fence();
    expect(await runtime.get('k')).toBe('v');
    await runtime.finalize();
  });

  it('never falls back to singleton on malformed variables', async () => {
    await expect(runtimeFromEnvironment({ PMI_FD: 'three' })).rejects.toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'PMI_FD' });
    await expect(runtimeFromEnvironment({ PMI_PORT: '127.0.0.1' })).rejects.toMatchObject({ argument: 'PMI_PORT' });
  });

  it('names PMI_PORT when nothing listens there', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await expect(PmiRuntime.connect({ PMI_PORT: `127.0.0.1:${port}`, PMI_ID: '0' })).rejects.toMatchObject({ status: DatStatus.CONNECTION_BROKEN, argument: 'PMI_PORT' });
    await expect(PmiRuntime.connect({})).rejects.toMatchObject({ status: DatStatus.INVALID_STATE });
  });
});
