import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run-cli.js';
import { COMMANDS } from '../src/cli/commands.js';
import { createRunCommand } from '../src/cli/run-command.js';
import { RunExitCode } from '../src/launcher/exit-codes.js';
import { tempDir } from './support/temp-dirs.js';

const here = dirname(fileURLToPath(import.meta.url));
const hello = join(here, 'fixtures', 'launch', 'hello.mjs');
const bin = join(here, '..', 'dist', 'cli', 'main.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `dapl <argv>` in-process; a spawn here would be a bug, so the run command refuses to spawn. */
async function run(argv: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const noSpawn = createRunCommand({
    stdin: null,
    signals: new EventEmitter(),
    spawnRank: () => {
      throw new Error('bad input must be refused before any rank is spawned');
    },
  });
  const code = await runCli(argv, {
    env,
    cwd: tempDir('dapl-run-'),
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    commands: COMMANDS.map((c) => (c.name === 'run' ? noSpawn : c)),
  });
  return { code, stdout, stderr };
}

const POINTER = "Run 'dapl run --help' for usage.\n";

describe('dapl run: bad input', () => {
  it.each([
    [['-n', '0', hello], '-n must be an integer from 1 to 16777216 (the number of ranks), got "0"'],
    [['-n-1', hello], '-n must be an integer from 1 to 16777216 (the number of ranks), got "-1"'],
    [['--np=-1', hello], '-n must be an integer from 1 to 16777216 (the number of ranks), got "-1"'],
    [['-n', 'abc', hello], '-n must be an integer from 1 to 16777216 (the number of ranks), got "abc"'],
    [[hello], '-n N is required: the number of ranks, an integer from 1 to 16777216'],
    [['-n', '2'], 'no program given: expected dapl run -n N [options] [--] program.mjs [args...]'],
    [['-n', '2', '--timeout', 'never', hello], '--timeout must be a number of seconds greater than 0 and at most 2147483, got "never"'],
    [['-n'], 'option -n/--np needs a value'],
    [['-n', '2', '-n', '3', hello], 'option -n/--np given twice ("2" and "3"); give it once'],
    [['--np=2', '--provider', 'tcp', '--provider=ib', hello], 'option --provider given twice ("tcp" and "ib"); give it once'],
    [['--bogus', hello], "unknown option '--bogus'; dapl run takes -n/--np, --provider, --config, --tag-output, --timeout, --in-process, --hosts, --hostfile, --launcher, --launcher-address, -h/--help"],
    [['-n', '2', '--tag-output=yes', hello], 'option --tag-output takes no value, got "yes"'],
  ])('%j is a usage error (2): %s', async (argv, message) => {
    expect(await run(['run', ...argv])).toEqual({ code: RunExitCode.USAGE, stdout: '', stderr: `dapl run: ${message}\n${POINTER}` });
  });

  it('-n -1 (a value that looks like an option) is a usage error (2) naming -n and the range', async () => {
    const r = await run(['run', '-n', '-1', hello]);
    expect(r.code).toBe(RunExitCode.USAGE);
    expect(r.stderr.split('\n')[0]).toBe('dapl run: -n must be an integer from 1 to 16777216 (the number of ranks), got "-1"');
    expect(r.stderr.endsWith(POINTER)).toBe(true);
  });

  it('-n beyond what the provider holds is a usage error (2) naming the limit: 1,024 processes on tcp, maxNodes on a simulated fabric', async () => {
    const processes = await run(['run', '-n', '1025', '--provider', 'tcp', hello]);
    expect(processes.code).toBe(RunExitCode.USAGE);
    expect(processes.stderr.split('\n')[0]).toBe(
      'dapl run: -n 1025: a job of provider tcp runs its ranks as processes (or tasks with real connections), at most 1024; a simulated provider (ib, lapi, combuf) runs up to its maxNodes in one process',
    );
    const fabric = await run(['run', '-n', '2049', '--provider', 'ib', hello], { DAPL_IB_MAX_NODES: '2048' });
    expect(fabric.code).toBe(RunExitCode.USAGE);
    expect(fabric.stderr.split('\n')[0]).toBe(
      'dapl run: -n 2049: the simulated fabric of provider ib holds at most 2048 nodes, one per rank (ib.maxNodes); raise ib.maxNodes (DAPL_IB_MAX_NODES=2049, or "maxNodes": 2049 in the "ib" section of a config file)',
    );
  });

  it("options end at the program: the program's own -n and --flags are passed on, not read by dapl run", async () => {
    const parsed: string[][] = [];
    const command = createRunCommand({});
    const probe = { ...command, run: async (args: { positionals: readonly string[]; values: Record<string, unknown> }) => (parsed.push([String(args.values.np), ...args.positionals]), 0) };
    const discard = { write: () => true };
    await runCli(['run', '-n', '2', hello, '-n', '5', '--size', '10'], { commands: [probe as typeof command], stdout: discard, stderr: discard });
    expect(parsed).toEqual([['2', hello, '-n', '5', '--size', '10']]);
  });

  it('a program file that does not exist is exit code 4, with its absolute path', async () => {
    const r = await run(['run', '-n', '2', 'missing-program.mjs']);
    expect(r.code).toBe(RunExitCode.PROGRAM_NOT_FOUND);
    expect(r.stderr).toMatch(/^dapl run: program file not found: \/.+\/missing-program\.mjs\n$/);
  });

  it('a directory is not a program (4)', async () => {
    const r = await run(['run', '-n', '1', here]);
    expect(r).toEqual({ code: RunExitCode.PROGRAM_NOT_FOUND, stdout: '', stderr: `dapl run: ${here} is a directory, not a program file\n` });
  });

  it('an unknown provider is a one-line configuration error (3) naming the known keys, from --provider or DAPL_PROVIDER', async () => {
    for (const [argv, env] of [
      [['--provider', 'warp-drive'], {}],
      [[], { DAPL_PROVIDER: 'warp-drive' }],
    ] as const) {
      const r = await run(['run', '-n', '2', ...argv, hello], env);
      expect(r.code).toBe(RunExitCode.CONFIGURATION);
      expect(r.stderr).toMatch(/^dapl run: configuration error: .*unknown provider key "warp-drive"; known keys: tcp \(built-in\)[^\n]*\n$/);
    }
  });

  it('a setting the provider does not declare is a one-line configuration error (3) before any rank starts, in-process too', async () => {
    for (const argv of [[], ['--in-process']]) {
      const r = await run(['run', '-n', '2', ...argv, hello], { DAPL_TCP_POLLUS: '50' });
      expect(r.code).toBe(RunExitCode.CONFIGURATION);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^dapl run: configuration error: .*provider tcp has no setting tcp\.pollus \(env DAPL_TCP_POLLUS\); it declares: tcp\.interface, [^\n]*tcp\.pollUs\n$/);
    }
  });

  it('a bad value of a declared setting is a one-line configuration error (3) before any rank starts, in-process too', async () => {
    for (const argv of [[], ['--in-process']]) {
      const r = await run(['run', '-n', '2', ...argv, hello], { DAPL_TCP_POLL_US: 'abc' });
      expect(r.code).toBe(RunExitCode.CONFIGURATION);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^dapl run: configuration error: .*invalid value for tcp\.pollUs from env DAPL_TCP_POLL_US: "abc"; expected an integer in \[0, 1000000\][^\n]*\n$/);
    }
  });

  it('a --config file that does not exist is a configuration error (3)', async () => {
    const r = await run(['run', '-n', '2', '--config', 'nowhere.json', hello]);
    expect(r.code).toBe(RunExitCode.CONFIGURATION);
    expect(r.stderr).toMatch(/^dapl run: configuration error: .*nowhere\.json[^\n]*\n$/);
  });

  it('the provider is checked before the program file', async () => {
    const r = await run(['run', '-n', '2', '--provider', 'warp-drive', 'missing-program.mjs']);
    expect(r.code).toBe(RunExitCode.CONFIGURATION);
  });

  it('through the real executable: -n 0 and a missing program', async () => {
    const dir = tempDir('dapl-run-');
    const zero = await runBin(['run', '-n', '0', hello], dir);
    expect(zero).toEqual({ code: 2, stdout: '', stderr: `dapl run: -n must be an integer from 1 to 16777216 (the number of ranks), got "0"\n${POINTER}` });
    const missing = await runBin(['run', '-n', '2', 'missing-program.mjs'], dir);
    expect(missing).toEqual({ code: 4, stdout: '', stderr: `dapl run: program file not found: ${join(dir, 'missing-program.mjs')}\n` });
  });
});

describe('dapl run --help', () => {
  it('documents every flag, the environment of the ranks and every exit code', async () => {
    const r = await run(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: dapl run -n N [--provider KEY] [--config FILE] [--tag-output] [--timeout S] [--in-process] [--hosts LIST | --hostfile FILE] [--launcher ssh|CMD] [--launcher-address ADDR] [--] program.mjs [args...]');
    for (const flag of ['-n, --np N', '--provider KEY', '--config FILE', '--tag-output', '--timeout S', '-h, --help']) expect(r.stdout).toContain(flag);
    for (const variable of ['PMI_FD=3', 'PMI_RANK', 'PMI_SIZE', 'DAPL_JOB_KEY', 'DAPL_PROVIDER', 'DAPL_CONFIG']) expect(r.stdout).toContain(variable);
    const exitTable = r.stdout.slice(r.stdout.indexOf('Exit status:'));
    for (const code of Object.values(RunExitCode).filter((c) => c !== RunExitCode.SIGNAL_BASE)) expect(exitTable).toMatch(new RegExp(`\\n  ${code}\\b`));
    expect(exitTable).toContain('128+S');
    expect((await run(['help', 'run'])).stdout).toBe(r.stdout);
  });

  it('dapl --help lists run', async () => {
    expect((await run(['--help'])).stdout).toMatch(/\n {2}run +Run a program as a job of N ranks/);
  });
});

function runBin(argv: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const env = { ...process.env };
    delete env.DAPL_PROVIDER;
    delete env.DAPL_CONFIG;
    execFile(process.execPath, [bin, ...argv], { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}
