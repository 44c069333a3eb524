import { resolve } from 'node:path';
import type { TextSink } from '../../cli/cli-types.js';
import { DaplConfig, type Environment } from '../../config/dapl-config.js';
import { SIM_REPORT_ENV } from '../../config/core-parameters.js';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { ProviderRegistry } from '../../registry/provider-registry.js';
import { createProviderRegistry } from '../../registry/create-provider-registry.js';
import type { LocalWaitHook } from '../../runtime/local-job.js';
import type { Clock } from '../../runtime/runtime.js';
import type { SimKernel } from '../../sim/sim-kernel.js';
import { isSimulatedProvider } from '../../sim/simulated-provider.js';
import { RunExitCode } from '../exit-codes.js';
import { realLauncherClock, type LauncherClock } from '../launcher-clock.js';
import { JOB_SIGNALS } from '../job-signals.js';
import { programFileProblem } from '../program-file.js';
import { jobEnvironment, newJobKey } from '../rank-environment.js';
import { MAX_RANKS, MAX_TIMEOUT_SECONDS } from '../run-arguments.js';
import { inProcessExitCode } from './in-process-outcome.js';
import { kernelDriver, simReportLine, type KernelDriver } from './kernel-driver.js';
import { InProcessJob, type ImportProgram, type RunRanks } from './in-process-job.js';

/** Where SIGINT, SIGTERM and SIGHUP are heard: `process`, or a test's emitter. */
export interface InterruptSource {
  /** Start listening for `signal`. */
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  /** Stop listening for `signal` with `listener`. */
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/** A job whose ranks run as async tasks of this process: the program, its arguments, the size, the provider and where output goes. */
export interface RunInProcessOptions {
  /** The program's path, relative to `cwd`. */
  readonly program: string;
  /** What the program finds in `process.argv.slice(2)`. */
  readonly args?: readonly string[];
  readonly size: number;
  /** A provider registry key, as `--provider` (the ranks' `DAPL_PROVIDER`). */
  readonly provider?: string;
  /** A config file, as `--config` (the ranks' `DAPL_CONFIG`), relative to `cwd`. */
  readonly configFile?: string;
  /** Prefix each output line with `[<rank>] `. */
  readonly tagOutput?: boolean;
  /** End the job after this many seconds (exit 124). */
  readonly timeoutS?: number;
  /** Each rank's clock; default a wall clock per rank (the simulator passes virtual clocks). */
  readonly clock?: (rank: number) => Clock;
  /** How the ranks are run; default all at once (the simulator passes its kernel's driver). */
  readonly runRanks?: RunRanks;
  /** Declares the ranks' fence / barrier waits; default none. */
  readonly waitHook?: LocalWaitHook;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** The environment the job's is made from; default `process.env`. */
  readonly env?: Environment;
  /** Default `process.cwd()`. */
  readonly cwd?: string;
  /** SIGINT, SIGTERM and SIGHUP heard here end the job (exit 130 / 143 / 129). */
  readonly signals?: InterruptSource;
  /** Default `import()`; tests that run core's sources through their own loader pass Node's. */
  readonly importProgram?: ImportProgram;
  /** Default: real time. */
  readonly launcherClock?: LauncherClock;
}

/** `DAPL_SIM_REPORT=1`: after a simulated job, one line on stderr with its virtual end time and events/s. */
export const SIM_REPORT_VARIABLE = SIM_REPORT_ENV;

/**
 * `dapl run --in-process`: N ranks of `program` in this process, with the exit code `dapl run`
 * would give with processes (see `RUN_EXIT_CODE_HELP`). A fresh job key is shared by the ranks
 * through their contexts' environment. An unknown provider or a bad config file is a DatError
 * thrown before any rank starts.
 */
export async function runInProcess(options: RunInProcessOptions): Promise<number> {
  checkSize(options.size);
  const timeoutMs = options.timeoutS === undefined ? undefined : timeoutMsOf(options.timeoutS);
  const cwd = options.cwd ?? process.cwd();
  const program = resolve(cwd, options.program);
  const configFile = options.configFile === undefined ? undefined : resolve(cwd, options.configFile);
  const env = jobEnvironment(options.env ?? process.env, { jobKey: newJobKey(), provider: options.provider, configFile });
  // What each rank would load as a process of its own, with this environment.
  const config = await DaplConfig.load({ env, cwd });
  const registry = await createProviderRegistry(config);
  registry.lookup(config.providerKey);
  // A simulated provider's ranks run under its kernel, in virtual time, unless the caller drives them.
  const sim = options.clock === undefined && options.runRanks === undefined ? await simulatedDriver(registry, config.providerKey) : undefined;
  const notRunnable = await programFileProblem(program);
  if (notRunnable !== undefined) {
    options.stderr.write(notRunnable);
    return RunExitCode.PROGRAM_NOT_FOUND;
  }
  const job = new InProcessJob(
    { size: options.size, program, args: options.args ?? [], env, config, tagOutput: options.tagOutput === true, timeoutMs },
    {
      stdout: options.stdout,
      stderr: options.stderr,
      clock: options.launcherClock ?? realLauncherClock,
      rankClock: options.clock ?? sim?.driver.clock,
      runRanks: options.runRanks ?? sim?.driver.runRanks,
      waitHook: options.waitHook ?? sim?.driver.waitHook,
      importProgram: options.importProgram,
    },
  );
  const onSignal = (signal: NodeJS.Signals): void => job.interrupt(signal);
  for (const s of JOB_SIGNALS) options.signals?.on(s, onSignal);
  try {
    const code = inProcessExitCode(await job.run());
    if (sim !== undefined && env[SIM_REPORT_VARIABLE] === '1') {
      options.stderr.write(simReportLine(config.providerKey, options.size, await sim.driver.finished, sim.kernel));
    }
    return code;
  } finally {
    for (const s of JOB_SIGNALS) options.signals?.off(s, onSignal);
  }
}

/**
 * The kernel driver for `key`'s provider when it is simulated. A provider that fails to load is
 * left to the ranks, which report it as they would with processes.
 */
async function simulatedDriver(registry: ProviderRegistry, key: string): Promise<{ kernel: SimKernel; driver: KernelDriver } | undefined> {
  let provider: unknown;
  try {
    provider = await registry.load(key);
  } catch {
    return undefined;
  }
  if (!isSimulatedProvider(provider)) return undefined;
  return { kernel: provider.kernel, driver: kernelDriver(provider.kernel) };
}

function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_RANKS) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `size must be an integer from 1 to ${MAX_RANKS} (the number of ranks), got ${String(size)}`, { argument: 'size' });
  }
}

function timeoutMsOf(seconds: number): number {
  if (!(typeof seconds === 'number' && seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `timeoutS must be a number of seconds greater than 0 and at most ${MAX_TIMEOUT_SECONDS}, got ${String(seconds)}`, {
      argument: 'timeoutS',
    });
  }
  return Math.ceil(seconds * 1000);
}
