import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { DatStatus } from '../src/dat/status.js';
import type { InterfaceAdapter as DatInterfaceAdapter } from '../src/dat/ia.js';
import type { DatProvider as DatProviderInterface } from '../src/dat/provider.js';
import { DaplConfig } from '../src/config/dapl-config.js';
import { ProviderRegistry } from '../src/registry/provider-registry.js';
import { createRootLogger } from '../src/logging/root-logger.js';
import { closeContainer, createContainer } from '../src/container/create-container.js';
import { DatProvider, InterfaceAdapter, LoggerFactory, RootLogger, Runtime } from '../src/container/tokens.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const validProviderPath = join(fixtures, 'valid-provider.mjs');

/** The fixture module as the registry imports it, to read what its stub IA recorded. */
interface FixtureModule {
  readonly opened: { options: Record<string, unknown>; runtime: unknown }[];
  readonly closed: unknown[];
}
const fixtureModule = (await import(pathToFileURL(validProviderPath).href)) as FixtureModule;

function fixtureRegistry(): ProviderRegistry {
  return new ProviderRegistry({ configured: [{ key: 'fx', specifier: validProviderPath, source: 'test' }] });
}

/** A pino destination that keeps the JSON lines. */
function logCollector(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('createContainer', () => {
  it('binds config, loggers, runtime and registry, and opens the configured provider on getAsync', async () => {
    const config = new DaplConfig({
      env: { DAPL_PROVIDER: 'fx', DAPL_FIXTURE_PORT: '7001', DAPL_JOB_KEY: '000102030405060708090a0b0c0d0e0f' },
      flags: { 'fixture.mode': 'safe' },
    });
    const runtime = new SingletonRuntime({ exit: () => undefined });
    const container = await createContainer(config, { runtime, registry: fixtureRegistry() });

    expect(container.get(DaplConfig)).toBe(config);
    expect(container.get(Runtime)).toBe(runtime);
    const provider = await container.getAsync<DatProviderInterface>(DatProvider);
    expect(provider.name).toBe('fixture');

    const before = fixtureModule.opened.length;
    const ia = await container.getAsync<DatInterfaceAdapter>(InterfaceAdapter);
    expect(await container.getAsync(InterfaceAdapter)).toBe(ia); // singleton
    expect(fixtureModule.opened.length).toBe(before + 1);
    const { options, runtime: passedRuntime } = fixtureModule.opened.at(-1)!;
    expect(passedRuntime).toBe(runtime);
    expect(options.name).toBe('fx');
    expect(options.parameters).toEqual({ port: 7001, mode: 'safe', eagerLimit: 4096 });
    expect(Buffer.from(options.jobKey as Uint8Array).toString('hex')).toBe('000102030405060708090a0b0c0d0e0f');

    await closeContainer(container);
    expect(ia.closed).toBe(true);
    expect(fixtureModule.closed).toContain(ia);
    await closeContainer(container); // idempotent
  });

  it('leaves the job key undefined when DAPL_JOB_KEY is absent', async () => {
    const container = await createContainer(new DaplConfig({ env: { DAPL_PROVIDER: 'fx' } }), { registry: fixtureRegistry() });
    await container.getAsync(InterfaceAdapter);
    expect(fixtureModule.opened.at(-1)!.options.jobKey).toBeUndefined();
    await closeContainer(container);
  });

  it('rejects getAsync(InterfaceAdapter) with PROVIDER_NOT_FOUND for an unknown key, and closes cleanly', async () => {
    const container = await createContainer(new DaplConfig({ env: { DAPL_PROVIDER: 'nope' } }), { registry: fixtureRegistry() });
    await expect(container.getAsync(InterfaceAdapter)).rejects.toMatchObject({ status: DatStatus.PROVIDER_NOT_FOUND, argument: 'provider' });
    await expect(closeContainer(container)).resolves.toBeUndefined();
  });

  it('rejects with INVALID_PARAMETER when a provider parameter is misconfigured', async () => {
    const config = new DaplConfig({ env: { DAPL_PROVIDER: 'fx', DAPL_FIXTURE_PORT: '70000' } });
    const container = await createContainer(config, { registry: fixtureRegistry() });
    await expect(container.getAsync(InterfaceAdapter)).rejects.toMatchObject({
      status: DatStatus.INVALID_PARAMETER,
      argument: 'fixture.port',
      message: expect.stringContaining('env DAPL_FIXTURE_PORT'),
    });
  });

  it('gives child loggers with component, rank and provider bindings', async () => {
    const { lines, stream } = logCollector();
    const rootLogger = createRootLogger({ level: 'info', destination: stream });
    const container = await createContainer(new DaplConfig({ env: { DAPL_PROVIDER: 'fx' } }), { registry: fixtureRegistry(), rootLogger });
    expect(container.get(RootLogger)).toBe(rootLogger);
    const factory = container.get<LoggerFactory>(LoggerFactory);
    factory('mpi:Adi', { rank: 3 }).info('hello');
    factory('mpi:Adi').debug('below the level');
    await container.getAsync(InterfaceAdapter);
    const iaLogger = fixtureModule.opened.at(-1)!.options.logger as { info(msg: string): void };
    iaLogger.info('from the provider');
    expect(lines.map((l) => [l.msg, l.component, l.rank, l.provider])).toEqual([
      ['hello', 'mpi:Adi', 3, undefined],
      ['from the provider', undefined, 0, 'fixture'],
    ]);
    await closeContainer(container);
  });

  it('loads upper-library modules after core, which can use core bindings', async () => {
    const Greeting = Symbol('Greeting');
    const upper = new ContainerModule(({ bind }) => {
      bind<string>(Greeting)
        .toDynamicValue((ctx) => `provider ${ctx.get(DaplConfig).providerKey} of rank ${ctx.get<SingletonRuntime>(Runtime).rank}`)
        .inSingletonScope();
    });
    const container = await createContainer(new DaplConfig({ env: { DAPL_PROVIDER: 'fx' } }), { registry: fixtureRegistry(), modules: [upper] });
    expect(container.get(Greeting)).toBe('provider fx of rank 0');
    expect(container.get(Runtime)).toBeInstanceOf(SingletonRuntime);
  });

  it('builds the registry from the configuration when none is given', async () => {
    const config = new DaplConfig({ env: {}, file: { path: '/p/c.json', topLevel: { provider: 'fx' }, sections: new Map(), providers: [{ key: 'fx', specifier: validProviderPath, source: 'file /p/c.json' }] } });
    const container = await createContainer(config);
    const registry = await container.getAsync(ProviderRegistry);
    expect(registry.entry('fx')!.source).toBe('file /p/c.json');
    expect((await container.getAsync<DatProviderInterface>(DatProvider)).name).toBe('fixture');
  });
});
