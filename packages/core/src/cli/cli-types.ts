import type { Environment } from '../config/dapl-config.js';

/** Something text can be written to: `process.stdout` or a test's collector. */
export interface TextSink {
  /** Write `text` as is (no newline added). */
  write(text: string): unknown;
}

/** What a CLI run may touch of the outside world; `main.ts` passes the process's. */
export interface CliIo {
  readonly env: Environment;
  readonly cwd: string;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** How long `dapl info` waits for an IA to open or close. */
  readonly iaTimeoutMs: number;
}

/** One option of a `dapl` command: its name, whether it takes a value, and its help line. */
export interface CliOption {
  readonly name: string;
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** Shown in help for a string option, e.g. `KEY`. */
  readonly valueName?: string;
  readonly help: string;
}

/** A command line as a command receives it: option values by name, then the positionals. */
export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** One `dapl` subcommand. Commands are rows of a table (`COMMANDS`), so adding one touches no dispatcher. */
export interface CliCommand {
  readonly name: string;
  /** One line, for the command list. */
  readonly summary: string;
  /** After `Usage: `, e.g. `dapl info [--provider KEY] [--json]`. */
  readonly usage: string;
  readonly description: string;
  /** `--help` is added to every command by the dispatcher. */
  readonly options: readonly CliOption[];
  /** Names of positional arguments, for help; none means positionals are a usage error. */
  readonly positionals?: readonly string[];
  /**
   * Options end at the first positional (as mpiexec's do): everything from the program on is
   * passed on verbatim, so `dapl run -n 2 app.mjs -n 5` gives `-n 5` to the program.
   */
  readonly optionsEndAtFirstPositional?: boolean;
  /** Run the command with its parsed arguments; resolves to the process exit code. */
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

/** Exit codes of `dapl`. */
export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  CONFIGURATION: 3,
} as const;

/** A command line that cannot be run as written (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose `--help` to point at, or undefined for `dapl --help`. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}
