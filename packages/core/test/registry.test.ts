import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { DAT_PROVIDER_BRAND } from '../src/dat/provider.js';
import { ProviderRegistry } from '../src/registry/provider-registry.js';
import { createProviderRegistry } from '../src/registry/create-provider-registry.js';
import { isDatProvider } from '../src/registry/provider-check.js';
import { missingModule } from '../src/registry/import-module.js';
import { parseDatConf } from '../src/config/dat-conf.js';
import { DaplConfig } from '../src/config/dapl-config.js';
import { tempDir } from './support/temp-dirs.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string): string => join(fixtures, name);

function registryWith(providers: Record<string, string>): ProviderRegistry {
  return new ProviderRegistry({
    configured: Object.entries(providers).map(([key, file]) => ({ key, specifier: fixture(file), source: 'file /test/dapl.config.json' })),
  });
}

async function refusal(registry: ProviderRegistry, key: string): Promise<DatError> {
  try {
    await registry.load(key);
  } catch (e) {
    expect(e).toBeInstanceOf(DatError);
    return e as DatError;
  }
  throw new Error(`expected provider "${key}" to be refused`);
}

describe('ProviderRegistry', () => {
  it('lists the built-in keys with their packages', () => {
    expect(new ProviderRegistry().list()).toEqual([
      { key: 'tcp', specifier: '@dapl/provider-tcp', source: 'built-in', shadows: [] },
      { key: 'ib', specifier: '@dapl/provider-ib', source: 'built-in', shadows: [] },
      { key: 'lapi', specifier: '@dapl/provider-lapi', source: 'built-in', shadows: [] },
      { key: 'combuf', specifier: '@dapl/provider-combuf', source: 'built-in', shadows: [] },
      { key: 'shm', specifier: '@dapl/provider-shm', source: 'built-in', shadows: [] },
    ]);
  });

  it('loads a valid provider exported as default, and caches it', async () => {
    const registry = registryWith({ fixture: 'valid-provider.mjs' });
    const provider = await registry.load('fixture');
    expect(provider.name).toBe('fixture');
    expect(provider[DAT_PROVIDER_BRAND]).toBe(true);
    expect(isDatProvider(provider)).toBe(true);
    expect(await registry.load('fixture')).toBe(provider);
  });

  it('loads a provider exported as `provider`', async () => {
    const provider = await registryWith({ named: 'named-export-provider.mjs' }).load('named');
    expect(provider.name).toBe('named');
    expect(provider.capabilities.inProcess).toBe(true);
  });

  it('refuses an unknown key, listing the known keys', async () => {
    const e = await refusal(registryWith({ fixture: 'valid-provider.mjs' }), 'infiniband');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.argument).toBe('provider');
    expect(e.message).toContain('unknown provider key "infiniband"');
    expect(e.message).toContain('fixture (file /test/dapl.config.json)');
    expect(e.message).toContain('tcp (built-in)');
    expect(e.message).toContain('combuf (built-in)');
  });

  it('refuses a built-in provider whose package is not installed, saying so', async () => {
    const e = await refusal(new ProviderRegistry({ builtins: { ib: '@dapl/provider-ib-not-installed' } }), 'ib');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toContain('provider "ib" (built-in: @dapl/provider-ib-not-installed)');
    expect(e.message).toContain('the package @dapl/provider-ib-not-installed is not installed');
  });

  it('refuses a path that does not exist', async () => {
    const e = await refusal(registryWith({ gone: 'no-such-file.mjs' }), 'gone');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toContain(fixture('no-such-file.mjs'));
    expect(e.message).toContain('does not exist');
  });

  it('refuses a module without the brand', async () => {
    const e = await refusal(registryWith({ nobrand: 'no-brand-provider.mjs' }), 'nobrand');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.argument).toBe('provider');
    expect(e.message).toContain('provider "nobrand"');
    expect(e.message).toContain(fixture('no-brand-provider.mjs'));
    expect(e.message).toContain('without the provider brand');
    expect(e.message).toContain("Symbol.for('@dapl/core/provider')");
  });

  it('refuses an unsupported apiVersion, saying which were found and supported', async () => {
    const e = await refusal(registryWith({ future: 'api99-provider.mjs' }), 'future');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toContain('apiVersion 99');
    expect(e.message).toContain('supports apiVersion 1');
  });

  it('refuses a module that exports nothing useful, listing its exports', async () => {
    const e = await refusal(registryWith({ useless: 'nothing-useful.mjs' }), 'useless');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toMatch(/exports (format, helper|helper, format)/);
    expect(e.message).toContain('as `default` or as `provider`');
  });

  it('refuses a module that throws while loading, keeping the cause', async () => {
    const e = await refusal(registryWith({ boom: 'throws-on-import.mjs' }), 'boom');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toContain('provider "boom"');
    expect(e.message).toContain('fixture exploded while loading');
    expect((e.cause as Error).message).toContain('fixture exploded while loading');
  });

  it('refuses a provider whose declared capabilities and parameters are invalid', async () => {
    const e = await refusal(registryWith({ bad: 'bad-parameters-provider.mjs' }), 'bad');
    expect(e.status).toBe(DatStatus.PROVIDER_NOT_FOUND);
    expect(e.message).toContain('capabilities.dto has "teleport"');
    expect(e.message).toContain('parameters[0] (window) default is invalid');
  });

  it('lets a configured key override a built-in, and records what it shadows', () => {
    const registry = registryWith({ tcp: 'valid-provider.mjs' });
    expect(registry.entry('tcp')).toEqual({
      key: 'tcp',
      specifier: fixture('valid-provider.mjs'),
      source: 'file /test/dapl.config.json',
      shadows: [{ specifier: '@dapl/provider-tcp', source: 'built-in' }],
    });
  });

  it('orders definitions config file > dat.conf > built-in', () => {
    const datConf = parseDatConf(['ib u2.0 threadsafe default ./from-datconf.mjs v1 "" ""', 'mine u2.0 threadsafe default ./dat-mine.mjs v1 "" ""'].join('\n'), {
      file: '/etc/dat.conf',
      baseDir: '/etc',
    });
    const registry = new ProviderRegistry({ configured: [{ key: 'mine', specifier: '/p/mine.mjs', source: 'file /p/c.json' }], datConf });
    expect(registry.entry('mine')).toMatchObject({ specifier: '/p/mine.mjs', shadows: [{ specifier: '/etc/dat-mine.mjs', source: 'dat.conf /etc/dat.conf:2' }] });
    expect(registry.entry('ib')).toMatchObject({ specifier: '/etc/from-datconf.mjs', source: 'dat.conf /etc/dat.conf:1' });
    expect(registry.entry('tcp')!.source).toBe('built-in');
  });

  it('refuses a dat.conf with a malformed line, naming the file and the line', () => {
    const datConf = parseDatConf('ok u2.0 threadsafe default ./ok.mjs v1 "" ""\nbroken u2.0 threadsafe', { file: '/etc/dat.conf' });
    let error: unknown;
    try {
      new ProviderRegistry({ datConf });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DatError);
    expect((error as DatError).status).toBe(DatStatus.INVALID_PARAMETER);
    expect((error as DatError).argument).toBe('DAT_OVERRIDE');
    expect((error as DatError).message).toContain('/etc/dat.conf:2: expected 8 fields, found 3');
  });
});

describe('createProviderRegistry', () => {
  it('takes providers from the config file and from the dat.conf named by DAT_OVERRIDE', async () => {
    const dir = tempDir('dapl-registry-');
    await writeFile(join(dir, 'dat.conf'), `ofa-v2-fixture u2.0 nonthreadsafe default ${fixture('valid-provider.mjs')} dapl.2.0 "fx0 0" ""\n`);
    await writeFile(join(dir, 'dapl.config.json'), JSON.stringify({ providers: { named: fixture('named-export-provider.mjs') } }));
    const config = await DaplConfig.load({ env: { DAT_OVERRIDE: 'dat.conf' }, cwd: dir });
    const registry = await createProviderRegistry(config);
    expect(registry.list().map((e) => e.key)).toEqual(['named', 'ofa-v2-fixture', 'tcp', 'ib', 'lapi', 'combuf', 'shm']);
    expect((await registry.load('ofa-v2-fixture')).name).toBe('fixture');
    expect((await registry.load('named')).name).toBe('named');
  });

  it('refuses a DAT_OVERRIDE file that does not exist', async () => {
    const dir = tempDir('dapl-registry-');
    const config = new DaplConfig({ env: { DAT_OVERRIDE: 'nope.conf' }, cwd: dir });
    await expect(createProviderRegistry(config)).rejects.toMatchObject({
      status: DatStatus.INVALID_PARAMETER,
      argument: 'DAT_OVERRIDE',
      message: expect.stringContaining(join(dir, 'nope.conf')),
    });
  });
});

describe('isDatProvider', () => {
  it('checks the Symbol.for brand, so a provider built against another copy of core passes', () => {
    const foreign = { [Symbol.for('@dapl/core/provider')]: true, name: 'x', openIa: async () => ({}) };
    expect(isDatProvider(foreign)).toBe(true);
    expect(isDatProvider({ [Symbol('@dapl/core/provider')]: true, name: 'x', openIa: async () => ({}) })).toBe(false);
    expect(isDatProvider({ [Symbol.for('@dapl/core/provider')]: true, name: 'x' })).toBe(false);
    expect(isDatProvider(null)).toBe(false);
  });
});

describe('missingModule', () => {
  const notFound = (message: string): Error => Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });

  it('tells a missing package from a package without its entry file and from a missing dependency', () => {
    expect(missingModule(notFound("Cannot find package '@dapl/provider-ib' imported from /x/y.js"), '@dapl/provider-ib')).toBe('self');
    expect(missingModule(notFound("Cannot find module '/p/node_modules/@dapl/provider-ib/dist/index.js' imported from /x/y.js"), '@dapl/provider-ib')).toBe('entry');
    expect(missingModule(notFound("Cannot find package 'left-pad' imported from /p/mine.mjs"), '/p/mine.mjs')).toBe('dependency');
    expect(missingModule(notFound("Cannot find module '/p/mine.mjs' imported from /x/y.js"), '/p/mine.mjs')).toBe('self');
    expect(missingModule(new Error('boom'), '/p/mine.mjs')).toBeUndefined();
  });
});

describe('a config file with a relative provider path', () => {
  it('resolves it against the file directory, wherever the process runs', async () => {
    const config = await DaplConfig.load({ env: { DAPL_CONFIG: join(fixtures, 'project', 'dapl.config.json') }, cwd: tmpdir() });
    const registry = await createProviderRegistry(config);
    expect(registry.entry('fixture')!.specifier).toBe(fixture('valid-provider.mjs'));
    expect((await registry.load(config.providerKey)).name).toBe('fixture');
    expect(config.get('fixture', (await registry.load('fixture')).parameters[1]!)).toBe('safe');
  });
});
