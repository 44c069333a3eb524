import { ExitCode } from '../cli/cli-types.js';

/**
 * Exit codes of `dapl run`: the CLI's own (0–3) plus the launcher's. A rank's own exit code passes
 * through unchanged, so 4 and 5 are the launcher's only when it printed a `dapl run:` line saying so.
 */
export const RunExitCode = {
  ...ExitCode,
  PROGRAM_NOT_FOUND: 4,
  PMI_PROTOCOL_ERROR: 5,
  /** As timeout(1). */
  TIMEOUT: 124,
  /** A rank killed by signal S, or the launcher stopped by S: 128 + S's number (SIGKILL 137, SIGINT 130, SIGTERM 143). */
  SIGNAL_BASE: 128,
} as const;

/** The exit-code table of `dapl run --help`, from the same numbers. */
export const RUN_EXIT_CODE_HELP: readonly (readonly [string, string])[] = [
  [`${RunExitCode.OK}`, 'every rank exited with code 0'],
  [`${RunExitCode.FAILURE}`, 'a rank could not be started, closed its PMI connection without finalize and exited 0, or (simulated) the job deadlocked'],
  [`${RunExitCode.USAGE}`, 'usage error: missing or bad -n, no program, bad --timeout, unknown option'],
  [`${RunExitCode.CONFIGURATION}`, 'configuration error, found before any rank starts: unknown provider, unreadable config file, bad value, a setting the provider or mpi does not declare (a value the IA refuses only when it opens, such as a tcp.interface this host lacks, fails each rank instead)'],
  [`${RunExitCode.PROGRAM_NOT_FOUND}`, 'the program file does not exist (or is a directory)'],
  [`${RunExitCode.PMI_PROTOCOL_ERROR}`, 'a rank broke the PMI protocol'],
  [`${RunExitCode.TIMEOUT}`, 'the job ran longer than --timeout'],
  ['129, 130, 143', 'dapl run got SIGHUP, SIGINT or SIGTERM (forwarded to the ranks)'],
  ['141', 'nobody reads the output any more (a closed pipe): the ranks were stopped'],
  ['C', 'the first failing rank exited with code C'],
  ['128+S', 'the first failing rank was killed by signal S (SIGKILL: 137)'],
  ['A', 'a rank called PMI abort with code A (0 is reported as 1)'],
];
