import { parseArgs } from 'node:util';
import { isDatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { ExitCode, UsageError, type CliCommand, type CliIo, type ParsedArgs } from './cli-types.js';
import { COMMANDS } from './commands.js';
import { firstArgumentProblem, parseArgsOptions } from './argument-problems.js';
import { HELP_OPTION, renderCommandHelp, renderGeneralHelp } from './help.js';
import { coreVersion } from './version.js';

/** What `runCli` runs with: the outside world (`CliIo`, each part defaulting to the process's) and the commands to offer. */
export interface RunCliOptions extends Partial<CliIo> {
  /** Default: `COMMANDS`. */
  readonly commands?: readonly CliCommand[];
}

/** Default limit on opening or closing an IA in `dapl info`. */
export const DEFAULT_IA_TIMEOUT_MS = 10_000;

/** Statuses that mean "the configuration is wrong" (exit code 3) rather than "something failed". */
const CONFIGURATION_STATUSES: ReadonlySet<string> = new Set([DatStatus.INVALID_PARAMETER, DatStatus.PROVIDER_NOT_FOUND]);

/**
 * Run `dapl` with `argv` (without `node` and the script) and return the exit code. Everything
 * the run touches comes from `options`, so tests run it in-process.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions = {}): Promise<number> {
  const io: CliIo = {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    iaTimeoutMs: options.iaTimeoutMs ?? DEFAULT_IA_TIMEOUT_MS,
  };
  const commands = options.commands ?? COMMANDS;
  let commandName: string | undefined;
  try {
    const [first, ...rest] = argv;
    if (first === undefined) throw new UsageError('a command is required');
    if (first === '--help' || first === '-h') return write(io.stdout, renderGeneralHelp(commands), ExitCode.OK);
    if (first === '--version' || first === '-V') return write(io.stdout, `${coreVersion()}\n`, ExitCode.OK);
    if (first.startsWith('-')) throw new UsageError(`unknown option '${first}' (options go after the command)`);
    const command = commands.find((c) => c.name === first);
    if (command === undefined) throw new UsageError(`unknown command "${first}"; commands: ${commands.map((c) => c.name).join(', ')}`);
    commandName = command.name;
    const args = parseCommandArgs(command, rest);
    if (args.values.help === true) return write(io.stdout, renderCommandHelp(command), ExitCode.OK);
    return await command.run(args, io);
  } catch (error) {
    return reportError(error, commandName, io);
  }
}

function parseCommandArgs(command: CliCommand, args: readonly string[]): ParsedArgs {
  const all = [...command.options, HELP_OPTION];
  const [own, passedOn] = command.optionsEndAtFirstPositional === true ? splitAtFirstPositional(command, args) : [args, []];
  const allowPositionals = (command.positionals ?? []).length > 0;
  const problem = firstArgumentProblem(command.name, all, own, allowPositionals);
  if (problem !== undefined) throw new UsageError(problem, command.name);
  try {
    const { values, positionals } = parseArgs({ args: [...own], options: parseArgsOptions(all), strict: true, allowPositionals });
    return { values: values as ParsedArgs['values'], positionals: [...positionals, ...passedOn] };
  } catch (error) {
    // Anything firstArgumentProblem does not word: Node's message, still a usage error.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true) throw new UsageError((error as Error).message, command.name);
    throw error;
  }
}

/** The command's own arguments, and the rest from the first positional on (a `--` is dropped). */
function splitAtFirstPositional(command: CliCommand, args: readonly string[]): [readonly string[], readonly string[]] {
  const longNameOf = new Map<string, string>();
  for (const o of command.options) {
    if (o.type !== 'string') continue;
    longNameOf.set(`--${o.name}`, o.name);
    if (o.short !== undefined) longNameOf.set(`-${o.short}`, o.name);
  }
  const own: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return [own, args.slice(i + 1)];
    if (!arg.startsWith('-') || arg === '-') return [own, args.slice(i)];
    const name = longNameOf.get(arg);
    if (name !== undefined && i + 1 < args.length) {
      // The value follows, whatever it looks like: `-n -1` is a bad value for -n, said by the command.
      own.push(`--${name}=${args[++i]}`);
      continue;
    }
    own.push(arg);
  }
  return [own, []];
}

function reportError(error: unknown, commandName: string | undefined, io: CliIo): number {
  const prefix = commandName === undefined ? 'dapl' : `dapl ${commandName}`;
  if (error instanceof UsageError) {
    const helpFor = error.command ?? commandName;
    const pointer = helpFor === undefined ? "dapl --help" : `dapl ${helpFor} --help`;
    return write(io.stderr, `${prefix}: ${error.message}\nRun '${pointer}' for usage.\n`, ExitCode.USAGE);
  }
  if (isDatError(error) && CONFIGURATION_STATUSES.has(error.status)) {
    return write(io.stderr, `${prefix}: configuration error: ${error.message}\n`, ExitCode.CONFIGURATION);
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return write(io.stderr, `${prefix}: ${message}\n`, ExitCode.FAILURE);
}

function write(sink: CliIo['stdout'], text: string, code: number): number {
  sink.write(text);
  return code;
}
