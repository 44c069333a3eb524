import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import type { ParameterSpec } from '../src/dat/provider.js';
import { parseParameterValue } from '../src/config/parameter-value.js';
import { environmentName, fromScreamingSnake, toScreamingSnake } from '../src/config/parameter-keys.js';
import { parseConfigFile } from '../src/config/config-file.js';
import { DaplConfig } from '../src/config/dapl-config.js';
import { decodeJobKey } from '../src/config/job-key.js';
import { tempDir } from './support/temp-dirs.js';

const eagerLimit: ParameterSpec = { name: 'eagerLimit', type: 'integer', default: 16384, min: 0, max: 1 << 30, help: 'h' };
const device: ParameterSpec = { name: 'device', type: 'enum', default: 'rdma', values: ['rdma', 'channel', 'am'], help: 'h' };
const ratio: ParameterSpec = { name: 'ratio', type: 'number', default: 0.5, min: 0, max: 1, help: 'h' };
const flag: ParameterSpec = { name: 'nodelay', type: 'boolean', default: true, help: 'h' };
const iface: ParameterSpec = { name: 'interface', type: 'string', default: '', help: 'h' };

/** Run `fn`, expect a DatError, return it. */
function catchDatError(fn: () => unknown): DatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DatError);
    return e as DatError;
  }
  throw new Error('expected a DatError');
}

async function catchDatErrorAsync(fn: () => Promise<unknown>): Promise<DatError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DatError);
    return e as DatError;
  }
  throw new Error('expected a DatError');
}

describe('parseParameterValue', () => {
  it('parses integers from JSON numbers and from text with k/m/g suffixes', () => {
    expect(parseParameterValue(eagerLimit, 4096, 'x')).toBe(4096);
    expect(parseParameterValue(eagerLimit, '64k', 'x')).toBe(65536);
    expect(parseParameterValue(eagerLimit, '1M', 'x')).toBe(1048576);
    expect(parseParameterValue(eagerLimit, '1g', 'x')).toBe(1 << 30);
    expect(parseParameterValue(eagerLimit, ' 12 ', 'x')).toBe(12);
  });

  it('parses numbers, booleans, strings and enums', () => {
    expect(parseParameterValue(ratio, '0.25', 'x')).toBe(0.25);
    expect(parseParameterValue(ratio, 1, 'x')).toBe(1);
    expect(parseParameterValue(flag, 'no', 'x')).toBe(false);
    expect(parseParameterValue(flag, 'YES', 'x')).toBe(true);
    expect(parseParameterValue(flag, '0', 'x')).toBe(false);
    expect(parseParameterValue(flag, true, 'x')).toBe(true);
    expect(parseParameterValue(iface, 'eth0', 'x')).toBe('eth0');
    expect(parseParameterValue(device, 'CHANNEL', 'x')).toBe('channel');
  });

  it('rejects an integer out of range, naming key, source, value and range', () => {
    const e = catchDatError(() => parseParameterValue(eagerLimit, '2g', 'env DAPL_MPI_EAGER_LIMIT', 'mpi.eagerLimit'));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.argument).toBe('mpi.eagerLimit');
    expect(e.message).toContain('mpi.eagerLimit');
    expect(e.message).toContain('from env DAPL_MPI_EAGER_LIMIT');
    expect(e.message).toContain('"2g"');
    expect(e.message).toContain(`[0, ${1 << 30}]`);
  });

  it('rejects a negative integer below min and a fraction', () => {
    expect(catchDatError(() => parseParameterValue(eagerLimit, -1, 'file f', 'mpi.eagerLimit')).argument).toBe('mpi.eagerLimit');
    const e = catchDatError(() => parseParameterValue(eagerLimit, 1.5, 'file f', 'mpi.eagerLimit'));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.message).toContain('1.5');
  });

  it('rejects an integer that is not safe', () => {
    const e = catchDatError(() => parseParameterValue({ ...eagerLimit, max: undefined }, '9007199254740993', 'flag --x', 'x'));
    expect(e.message).toContain('an integer');
  });

  it('rejects a bad enum value listing the allowed values', () => {
    const e = catchDatError(() => parseParameterValue(device, 'tcp', 'env DAPL_MPI_DEVICE', 'mpi.device'));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.argument).toBe('mpi.device');
    expect(e.message).toContain('one of rdma, channel, am');
  });

  it('rejects a bad boolean, a non-number and a wrongly typed string', () => {
    expect(catchDatError(() => parseParameterValue(flag, 'maybe', 'env X', 'tcp.nodelay')).message).toContain('"maybe"');
    expect(catchDatError(() => parseParameterValue(ratio, '1/2', 'env X', 'r')).message).toContain('a number in [0, 1]');
    expect(catchDatError(() => parseParameterValue(iface, 5, 'file f', 'tcp.interface')).message).toContain('expected a string');
  });
});

describe('parameter names', () => {
  it('maps camelCase to SCREAMING_SNAKE and back', () => {
    expect(toScreamingSnake('eagerLimit')).toBe('EAGER_LIMIT');
    expect(toScreamingSnake('rdmaMTU')).toBe('RDMA_MTU');
    expect(fromScreamingSnake('EAGER_LIMIT')).toBe('eagerLimit');
    expect(fromScreamingSnake('INTERFACE')).toBe('interface');
    expect(environmentName('mpi', 'eagerLimit')).toBe('DAPL_MPI_EAGER_LIMIT');
    expect(environmentName('tcp', 'interface')).toBe('DAPL_TCP_INTERFACE');
    expect(environmentName(undefined, 'provider')).toBe('DAPL_PROVIDER');
    expect(environmentName('log', 'level')).toBe('DAPL_LOG_LEVEL');
  });
});

describe('DaplConfig', () => {
  const file = parseConfigFile(
    JSON.stringify({ provider: 'ib', log: { level: 'info' }, mpi: { eagerLimit: 8192, device: 'am' } }),
    '/etc/project/dapl.config.json',
  );

  it('gives defaults with no file and an empty environment', () => {
    const config = new DaplConfig({ env: {} });
    expect(config.providerKey).toBe('tcp');
    expect(config.logLevel).toBe('warn');
    expect(config.extraProviders).toEqual([]);
    expect(config.jobKey).toBeUndefined();
    expect(config.configFile).toBeUndefined();
    expect(config.explain('mpi', eagerLimit)).toEqual({ key: 'mpi.eagerLimit', value: 16384, source: 'default', env: 'DAPL_MPI_EAGER_LIMIT' });
  });

  it('layers flag > environment > file > default', () => {
    const fileOnly = new DaplConfig({ env: {}, file });
    expect(fileOnly.explain('mpi', eagerLimit)).toMatchObject({ value: 8192, source: 'file /etc/project/dapl.config.json' });
    const envOverFile = new DaplConfig({ env: { DAPL_MPI_EAGER_LIMIT: '32k' }, file });
    expect(envOverFile.explain('mpi', eagerLimit)).toMatchObject({ value: 32768, source: 'env DAPL_MPI_EAGER_LIMIT' });
    const flagOverEnv = new DaplConfig({ env: { DAPL_MPI_EAGER_LIMIT: '32k' }, file, flags: { 'mpi.eagerLimit': '1k' } });
    expect(flagOverEnv.explain('mpi', eagerLimit)).toMatchObject({ value: 1024, source: 'flag --mpi.eagerLimit' });
    expect(flagOverEnv.get('mpi', device)).toBe('am');
    expect(flagOverEnv.get('mpi', ratio)).toBe(0.5);
  });

  it('reads the top-level provider and the log level from each layer', () => {
    expect(new DaplConfig({ env: {}, file }).providerKey).toBe('ib');
    expect(new DaplConfig({ env: { DAPL_PROVIDER: 'lapi' }, file }).providerKey).toBe('lapi');
    expect(new DaplConfig({ env: { DAPL_PROVIDER: 'lapi' }, file, flags: { provider: 'combuf' } }).providerKey).toBe('combuf');
    expect(new DaplConfig({ env: {}, file }).logLevel).toBe('info');
    expect(new DaplConfig({ env: { DAPL_LOG_LEVEL: 'DEBUG' }, file }).logLevel).toBe('debug');
  });

  it('treats an empty environment variable as unset', () => {
    expect(new DaplConfig({ env: { DAPL_LOG_LEVEL: '' } }).logLevel).toBe('warn');
  });

  it('refuses a bad DAPL_LOG_LEVEL at construction, naming key and source', () => {
    const e = catchDatError(() => new DaplConfig({ env: { DAPL_LOG_LEVEL: 'loud' } }));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.argument).toBe('log.level');
    expect(e.message).toContain('from env DAPL_LOG_LEVEL');
    expect(e.message).toContain('"loud"');
    expect(e.message).toContain('silent');
  });

  it('refuses a bad value in the file when it is asked for, naming the file', () => {
    const bad = parseConfigFile(JSON.stringify({ mpi: { eagerLimit: 'lots' } }), '/p/dapl.config.json');
    const config = new DaplConfig({ env: {}, file: bad });
    const e = catchDatError(() => config.get('mpi', eagerLimit));
    expect(e.argument).toBe('mpi.eagerLimit');
    expect(e.message).toContain('from file /p/dapl.config.json');
  });

  it('resolves a section and reports keys no spec declares', () => {
    const config = new DaplConfig({ env: { DAPL_MPI_EAGER_LIMT: '5', DAPL_MPI_DEVICE: 'channel' }, file: parseConfigFile('{"mpi":{"devise":"am"}}', '/p/c.json') });
    const section = config.resolveSection('mpi', [eagerLimit, device]);
    expect(section.values).toEqual({ eagerLimit: 16384, device: 'channel' });
    expect(section.sources.device!.source).toBe('env DAPL_MPI_DEVICE');
    expect(config.unknownKeys('mpi', [eagerLimit, device])).toEqual([
      { key: 'mpi.devise', source: 'file /p/c.json' },
      { key: 'mpi.eagerLimt', source: 'env DAPL_MPI_EAGER_LIMT' },
    ]);
  });

  it("does not take a setting's own variable for an unknown one when its name does not read back (rdmaMTU from ..._RDMA_MTU), nor core's variables for a section's", () => {
    const rdmaMTU: ParameterSpec = { name: 'rdmaMTU', type: 'integer', default: 4096, help: 'an acronym in the name' };
    const config = new DaplConfig({ env: { DAPL_X_RDMA_MTU: '2048', DAPL_JOB_KEY: '00112233445566778899aabbccddeeff', DAPL_SIM_REPORT: '1', DAPL_X_RDMA_MTUU: '1' } });
    expect(config.get('x', rdmaMTU)).toBe(2048);
    expect(config.unknownKeys('x', [rdmaMTU])).toEqual([{ key: 'x.rdmaMtuu', source: 'env DAPL_X_RDMA_MTUU' }]);
    expect(config.unknownKeys('job', [])).toEqual([]);
    expect(config.unknownKeys('sim', [])).toEqual([]);
  });

  it('decodes DAPL_JOB_KEY from hex and base64url, and refuses a short or garbled one', () => {
    const hex = '00112233445566778899aabbccddeeff';
    expect(Buffer.from(new DaplConfig({ env: { DAPL_JOB_KEY: hex } }).jobKey!).toString('hex')).toBe(hex);
    const b64 = Buffer.from(hex, 'hex').toString('base64url');
    expect(Buffer.from(new DaplConfig({ env: { DAPL_JOB_KEY: b64 } }).jobKey!).toString('hex')).toBe(hex);
    const short = catchDatError(() => new DaplConfig({ env: { DAPL_JOB_KEY: 'abcd' } }));
    expect(short.argument).toBe('job.key');
    expect(short.message).toContain('env DAPL_JOB_KEY');
    expect(short.message).toContain('2 bytes');
    expect(catchDatError(() => decodeJobKey('not a key!', 'env DAPL_JOB_KEY')).message).toContain('neither hex nor base64url');
  });
});

describe('config file', () => {
  it('resolves relative provider specifiers against the file directory, keeps bare ones', () => {
    const c = parseConfigFile(JSON.stringify({ providers: { mine: './lib/mine.mjs', pkg: 'some-provider', abs: '/opt/p.mjs' } }), '/home/u/proj/dapl.config.json');
    expect(c.providers).toEqual([
      { key: 'mine', specifier: '/home/u/proj/lib/mine.mjs', source: 'file /home/u/proj/dapl.config.json' },
      { key: 'pkg', specifier: 'some-provider', source: 'file /home/u/proj/dapl.config.json' },
      { key: 'abs', specifier: '/opt/p.mjs', source: 'file /home/u/proj/dapl.config.json' },
    ]);
  });

  it('refuses malformed JSON naming the file', () => {
    const e = catchDatError(() => parseConfigFile('{ "provider": "tcp", }', '/p/dapl.config.json'));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.argument).toBe('config');
    expect(e.message).toContain('/p/dapl.config.json');
    expect(e.message).toContain('not valid JSON');
  });

  it('refuses wrong shapes, naming the file and the key', () => {
    const array = catchDatError(() => parseConfigFile('[1]', '/p/c.json'));
    expect(array.message).toContain('/p/c.json');
    const providers = catchDatError(() => parseConfigFile('{"providers":{"x":5}}', '/p/c.json'));
    expect(providers.argument).toBe('providers.x');
    expect(providers.message).toContain('/p/c.json');
    const nested = catchDatError(() => parseConfigFile('{"mpi":{"eagerLimit":[1]}}', '/p/c.json'));
    expect(nested.argument).toBe('mpi.eagerLimit');
    expect(nested.message).toContain('found an array');
  });

  it('refuses a top-level key that is no top-level setting, and a setting given as a section, naming the key', () => {
    const misspelt = catchDatError(() => parseConfigFile('{"provder":"ib"}', '/p/c.json'));
    expect(misspelt.argument).toBe('provder');
    expect(misspelt.message).toContain('is not a top-level setting (known: provider)');
    const sectionAsScalar = catchDatError(() => parseConfigFile('{"log":"debug"}', '/p/c.json'));
    expect(sectionAsScalar.argument).toBe('log');
    const settingAsSection = catchDatError(() => parseConfigFile('{"provider":{"name":"ib"}}', '/p/c.json'));
    expect(settingAsSection.argument).toBe('provider');
    expect(settingAsSection.message).toContain('a setting, not a section');
    expect(parseConfigFile('{"$schema":"x","provider":"ib","mpi":{"eagerLimit":1}}', '/p/c.json').topLevel).toEqual({ provider: 'ib' });
  });
});

describe('DaplConfig.load', () => {
  const configDir = (): string => tempDir('dapl-config-');

  it('reads dapl.config.json from the working directory', async () => {
    const dir = configDir();
    await writeFile(join(dir, 'dapl.config.json'), JSON.stringify({ provider: 'lapi', providers: { mine: './mine.mjs' } }));
    const config = await DaplConfig.load({ env: {}, cwd: dir });
    expect(config.providerKey).toBe('lapi');
    expect(config.configFile).toBe(join(dir, 'dapl.config.json'));
    expect(config.extraProviders[0]!.specifier).toBe(join(dir, 'mine.mjs'));
  });

  it('works with no file at all', async () => {
    const config = await DaplConfig.load({ env: {}, cwd: configDir() });
    expect(config.configFile).toBeUndefined();
    expect(config.providerKey).toBe('tcp');
  });

  it('prefers --config over DAPL_CONFIG over the working directory', async () => {
    const dir = configDir();
    await writeFile(join(dir, 'dapl.config.json'), '{"provider":"cwd"}');
    await writeFile(join(dir, 'env.json'), '{"provider":"env"}');
    await writeFile(join(dir, 'flag.json'), '{"provider":"flag"}');
    expect((await DaplConfig.load({ env: { DAPL_CONFIG: 'env.json' }, cwd: dir })).providerKey).toBe('env');
    expect((await DaplConfig.load({ env: { DAPL_CONFIG: 'env.json' }, cwd: dir, configFile: 'flag.json' })).providerKey).toBe('flag');
  });

  it('refuses a named config file that does not exist, naming it and who named it', async () => {
    const dir = configDir();
    const e = await catchDatErrorAsync(() => DaplConfig.load({ env: { DAPL_CONFIG: 'missing.json' }, cwd: dir }));
    expect(e.status).toBe(DatStatus.INVALID_PARAMETER);
    expect(e.argument).toBe('config');
    expect(e.message).toContain(join(dir, 'missing.json'));
    expect(e.message).toContain('env DAPL_CONFIG');
  });

  it('refuses a malformed file in the working directory', async () => {
    const dir = configDir();
    await writeFile(join(dir, 'dapl.config.json'), '{"log": ');
    const e = await catchDatErrorAsync(() => DaplConfig.load({ env: {}, cwd: dir }));
    expect(e.message).toContain(join(dir, 'dapl.config.json'));
  });
});
