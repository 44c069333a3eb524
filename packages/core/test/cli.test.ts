import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.js';
import { COMMANDS } from '../src/cli/commands.js';
import { gatherInfo, type InfoReport, type LoadedProviderInfo } from '../src/cli/info-report.js';
import { renderInfoText } from '../src/cli/info-render.js';
import { DaplConfig } from '../src/config/dapl-config.js';
import { createProviderRegistry } from '../src/registry/create-provider-registry.js';
import { createRootLogger } from '../src/logging/root-logger.js';
import { tempDir } from './support/temp-dirs.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const version = (JSON.parse(readFileSync(join(fixtures, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(argv: string[], env: Record<string, string> = {}, cwd?: string): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env,
    cwd: cwd ?? tempDir('dapl-cli-'),
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    iaTimeoutMs: 200,
  });
  return { code, stdout, stderr };
}

/** A project directory whose dapl.config.json registers fixture providers (no built-in is needed). */
async function project(config: Record<string, unknown>): Promise<string> {
  const dir = tempDir('dapl-cli-');
  await writeFile(join(dir, 'dapl.config.json'), JSON.stringify(config));
  return dir;
}

const FIXTURE_PROVIDERS = {
  fx: join(fixtures, 'valid-provider.mjs'),
  nobrand: join(fixtures, 'no-brand-provider.mjs'),
  // A package that is never installed, so the "not installed" report does not depend on which
  // built-in providers exist yet.
  ghost: '@dapl/provider-ghost',
};

describe('dapl help', () => {
  it('--help lists every command and exits 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: dapl <command>');
    for (const c of COMMANDS) expect(r.stdout).toContain(`${c.name}  `);
    expect(r.stderr).toBe('');
  });

  it('help, help info and info --help show the right text', async () => {
    expect((await run(['help'])).stdout).toBe((await run(['--help'])).stdout);
    const viaHelp = await run(['help', 'info']);
    const viaFlag = await run(['info', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toBe(viaHelp.stdout);
    expect(viaFlag.stdout).toContain('Usage: dapl info [--provider KEY] [--config FILE] [--json | --markdown]');
    expect(viaFlag.stdout).toContain('--provider KEY');
    expect(viaFlag.stdout).toContain('-h, --help');
  });

  it('every command has --help', async () => {
    for (const c of COMMANDS) {
      const r = await run([c.name, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: ${c.usage}`);
    }
  });

  it('--version prints the version of @dapl/core', async () => {
    const r = await run(['--version']);
    expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('dapl usage errors', () => {
  it('an unknown command exits 2 with one line and a pointer to --help', async () => {
    const r = await run(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain("Run 'dapl --help'");
  });

  it('an unknown flag exits 2 and points at the command help', async () => {
    const r = await run(['info', '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("'--verbose'");
    expect(r.stderr).toContain("Run 'dapl info --help'");
  });

  it.each([
    [['info', '--provider'], 'option --provider needs a value'],
    [['info', '--provider', '--json'], "option --provider needs a value, got the option '--json' (if that is the value, write --provider=--json)"],
    [['info', 'extra'], "unexpected argument 'extra': dapl info takes none"],
    [['info', '--json=1'], 'option --json takes no value, got "1"'],
    [['info', '--config', 'a.json', '--config', 'b.json'], 'option --config given twice ("a.json" and "b.json"); give it once'],
  ])('%j is said in dapl terms, not parseArgs ones: %s', async (argv, message) => {
    expect(await run(argv)).toEqual({ code: 2, stdout: '', stderr: `dapl info: ${message}\nRun 'dapl info --help' for usage.\n` });
  });

  it('a missing flag value, a stray positional, no command, and help for an unknown command exit 2', async () => {
    expect((await run(['info', '--provider'])).code).toBe(2);
    expect((await run(['info', 'extra'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
    const r = await run(['help', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "nosuch"');
  });
});

describe('dapl configuration errors', () => {
  it('an unknown provider exits 3 listing the known keys', async () => {
    const dir = await project({ providers: FIXTURE_PROVIDERS });
    const r = await run(['info', '--provider', 'warp'], {}, dir);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown provider key "warp"');
    expect(r.stderr).toContain('fx (file ');
    expect(r.stderr).toContain('tcp (built-in)');
  });

  it('a bad configuration value exits 3 naming the key and its source', async () => {
    const r = await run(['info'], { DAPL_LOG_LEVEL: 'chatty' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('log.level');
    expect(r.stderr).toContain('env DAPL_LOG_LEVEL');
    expect(r.stderr).toContain('"chatty"');
  });

  it('a malformed config file exits 3 naming the file', async () => {
    const dir = tempDir('dapl-cli-');
    await writeFile(join(dir, 'broken.json'), '{ nope');
    const r = await run(['info', '--config', 'broken.json'], {}, dir);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(join(dir, 'broken.json'));
  });

  it('a selected provider that cannot load prints the report and exits 3', async () => {
    const dir = await project({ provider: 'nobrand', providers: FIXTURE_PROVIDERS });
    const r = await run(['info'], {}, dir);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('Provider nobrand (selected)');
    expect(r.stdout).toContain('without the provider brand');
    expect(r.stderr).toContain('the selected provider "nobrand" cannot be loaded');
  });

  it('a setting the selected provider does not declare exits 3, named with its source; the IA is not opened', async () => {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS, fixture: { port: 7000, prot: 1 } });
    const r = await run(['info', '--json'], { DAPL_FIXTURE_EAGERLIMIT: '64' }, dir);
    expect(r.code).toBe(3);
    const fx = (JSON.parse(r.stdout) as InfoReport).providers.find((p) => p.key === 'fx') as LoadedProviderInfo;
    expect(fx.unknownKeys).toEqual([
      { key: 'fixture.prot', source: `file ${join(dir, 'dapl.config.json')}` },
      { key: 'fixture.eagerlimit', source: 'env DAPL_FIXTURE_EAGERLIMIT' },
    ]);
    expect(fx.ia).toMatchObject({ opened: false, error: expect.stringContaining('DAT_INVALID_PARAMETER: provider fixture has no setting fixture.prot') });
    expect(r.stderr).toContain('the selected provider "fx" has no setting fixture.prot');
    const text = await run(['info'], {}, dir);
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('error: fixture.prot (file');
  });

  it("a setting another provider's section does not declare is only a warning: this job does not use it (exit 0)", async () => {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS, fixture: { port: 7000 }, tcp: { pollus: 1 } });
    const r = await run(['info'], {}, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`warning: tcp.pollus (file ${join(dir, 'dapl.config.json')}) is not a parameter of tcp`);
    expect(r.stdout).not.toContain('error:');
  });

  it('an invalid parameter of the selected provider exits 3 and is shown with its source', async () => {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS, fixture: { mode: 'reckless' } });
    const r = await run(['info'], {}, dir);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('fixture.mode');
    expect(r.stdout).toContain(`from file ${join(dir, 'dapl.config.json')}`);
    expect(r.stderr).toContain('invalid parameters: fixture.mode');
  });
});

describe('dapl info', () => {
  async function fixtureReport(env: Record<string, string> = {}): Promise<InfoReport> {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS, log: { level: 'error' }, fixture: { port: 7000 } });
    const r = await run(['info', '--json'], env, dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as InfoReport;
  }

  it('--json reports the registry with sources, each provider, the IA of the selected one, and core keys', async () => {
    const report = await fixtureReport({ DAPL_FIXTURE_MODE: 'safe' });
    expect(report.selectedProvider).toBe('fx');
    expect(report.registry.map((e) => [e.key, e.source.split(' ')[0]])).toEqual([
      ['fx', 'file'],
      ['nobrand', 'file'],
      ['ghost', 'file'],
      ['tcp', 'built-in'],
      ['ib', 'built-in'],
      ['lapi', 'built-in'],
      ['combuf', 'built-in'],
      ['shm', 'built-in'],
    ]);

    const fx = report.providers.find((p) => p.key === 'fx') as LoadedProviderInfo;
    expect(fx).toMatchObject({ loaded: true, selected: true, name: 'fixture', apiVersion: 1, description: 'test fixture provider' });
    expect(fx.capabilities).toEqual({ dto: ['rdma-write'], extensions: [], inProcess: false });
    expect(fx.parameters.map((p) => [p.key, p.value, p.source?.split(' ')[0]])).toEqual([
      ['fixture.port', 7000, 'file'],
      ['fixture.mode', 'safe', 'env'],
      ['fixture.eagerLimit', 4096, 'default'],
    ]);
    expect(fx.parameters[0]).toMatchObject({ type: 'integer', default: 0, min: 0, max: 65535, env: 'DAPL_FIXTURE_PORT' });
    expect(fx.unknownKeys).toEqual([]);
    expect(fx.ia).toMatchObject({ opened: true, name: 'fx', limits: { maxMessageSize: 65536, connQualRange: [1, 65535] }, parameters: { port: 7000, mode: 'safe', eagerLimit: 4096 } });
    expect((fx.ia as { address: string }).address).toMatch(/^fixture:/);

    const ghost = report.providers.find((p) => p.key === 'ghost')!;
    expect(ghost).toMatchObject({ loaded: false, selected: false, error: expect.stringContaining('@dapl/provider-ghost is not installed') });
    expect(report.providers.find((p) => p.key === 'nobrand')).toMatchObject({ loaded: false, error: expect.stringContaining('brand') });

    expect(report.configuration).toEqual([
      expect.objectContaining({ key: 'provider', value: 'fx', source: expect.stringMatching(/^file /), env: 'DAPL_PROVIDER' }),
      expect.objectContaining({ key: 'log.level', value: 'error', source: expect.stringMatching(/^file /), env: 'DAPL_LOG_LEVEL' }),
    ]);
    expect(report.jobKey).toBe('unset');
  });

  it('--provider overrides the config file and is reported as a flag', async () => {
    const dir = await project({ provider: 'nobrand', providers: FIXTURE_PROVIDERS });
    const r = await run(['info', '--json', '--provider', 'fx'], {}, dir);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as InfoReport;
    expect(report.configuration[0]).toMatchObject({ key: 'provider', value: 'fx', source: 'flag --provider' });
  });

  it('prints the same facts as text', async () => {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS });
    const r = await run(['info'], { DAPL_JOB_KEY: '000102030405060708090a0b0c0d0e0f' }, dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Provider registry (selected: fx)');
    expect(r.stdout).toMatch(/\* fx\s+\S+valid-provider\.mjs\s+file /);
    expect(r.stdout).toContain('Provider fx (selected)');
    expect(r.stdout).toMatch(/fixture\.port\s+= 0\s+\(default\)\s+integer \[0, 65535\]\s+default 0\s+DAPL_FIXTURE_PORT/);
    expect(r.stdout).toMatch(/fixture\.mode\s+= fast\s+\(default\)\s+enum fast\|safe/);
    expect(r.stdout).toMatch(/maxMessageSize\s+65536/);
    expect(r.stdout).toMatch(/address\s+fixture:/);
    expect(r.stdout).toMatch(/refused: .*provider "ghost" \(file [^)]*@dapl\/provider-ghost\).*not installed/);
    expect(r.stdout).toMatch(/log\.level\s+= warn\s+\(default\)/);
    expect(r.stdout).toContain('job key      set by DAPL_JOB_KEY');
    expect(r.stdout).not.toContain('000102030405060708090a0b0c0d0e0f');
  });

  it('reports an IA that does not open in time, and exits 1', async () => {
    const dir = await project({ provider: 'slow', providers: { slow: join(fixtures, 'hanging-provider.mjs') } });
    const r = await run(['info', '--json'], {}, dir);
    expect(r.code).toBe(1);
    const slow = (JSON.parse(r.stdout) as InfoReport).providers.find((p) => p.key === 'slow') as LoadedProviderInfo;
    expect(slow.ia).toMatchObject({ opened: false, error: expect.stringContaining('did not finish within 200 ms') });
    expect(r.stderr).toContain('could not be opened');
  });

  it('an IA that refuses a setting when it opens (DAT_INVALID_PARAMETER) is a configuration error (3)', async () => {
    const dir = await project({ provider: 'refusing', providers: { refusing: join(fixtures, 'refusing-provider.mjs') } });
    const r = await run(['info', '--json'], {}, dir);
    expect(r.code).toBe(3);
    const refusing = (JSON.parse(r.stdout) as InfoReport).providers.find((p) => p.key === 'refusing') as LoadedProviderInfo;
    expect(refusing.ia).toEqual({ opened: false, error: 'DAT_INVALID_PARAMETER: refusing.address "192.0.2.1" is not an address of this host', status: 'DAT_INVALID_PARAMETER' });
    expect(r.stderr).toBe('dapl info: the IA of "refusing" could not be opened: DAT_INVALID_PARAMETER: refusing.address "192.0.2.1" is not an address of this host\n');
  });
});

describe('gatherInfo', () => {
  it('builds the report without printing, opening only the selected provider', async () => {
    const dir = await project({ provider: 'fx', providers: FIXTURE_PROVIDERS });
    const config = await DaplConfig.load({ env: { DAPL_LOG_LEVEL: 'silent' }, cwd: dir });
    const registry = await createProviderRegistry(config);
    const report = await gatherInfo({ config, registry, logger: createRootLogger({ level: 'silent' }), iaTimeoutMs: 1000, version: 'test' });
    const loaded = report.providers.filter((p): p is LoadedProviderInfo => p.loaded);
    expect(loaded.map((p) => [p.key, p.ia?.opened])).toEqual([['fx', true], ...loaded.slice(1).map((p) => [p.key, undefined])]);
    expect(report.configFile).toBe(join(dir, 'dapl.config.json'));
    expect(renderInfoText(report)).toContain('dapl.ts (@dapl/core test)');
  });
});
