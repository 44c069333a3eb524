import type { Readable } from 'node:stream';
import { DaplConfig } from '../config/dapl-config.js';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { loadLibrarySections } from '../config/library-sections.js';
import { packageName } from '../registry/import-module.js';
import { createProviderRegistry } from '../registry/create-provider-registry.js';
import { configurationWarnings } from '../registry/configuration-warnings.js';
import { createRootLogger } from '../logging/root-logger.js';
import { UsageError, type CliCommand } from './cli-types.js';
import { rankLimitProblem, MAX_PROCESS_RANKS } from '../launcher/rank-limit.js';
import { isSimulatedProvider } from '../sim/simulated-provider.js';
import { RUN_EXIT_CODE_HELP, RunExitCode } from '../launcher/exit-codes.js';
import { exitCodeOf } from '../launcher/job-outcome.js';
import { Job, DEFAULT_GRACE_MS } from '../launcher/job.js';
import { runInProcess } from '../launcher/in-process/run-in-process.js';
import { realLauncherClock, type LauncherClock } from '../launcher/launcher-clock.js';
import { createNodePmiServer } from '../launcher/node-pmi-server.js';
import type { CreatePmiServer } from '../launcher/pmi-server-port.js';
import { jobEnvironment, newJobKey, PMI_FD_NUMBER } from '../launcher/rank-environment.js';
import type { SpawnRank } from '../launcher/rank-process.js';
import { MAX_RANKS, parseRunArguments } from '../launcher/run-arguments.js';
import { programFileProblem } from '../launcher/program-file.js';
import { rankSpawnerFor } from '../launcher/worker/rank-spawner.js';
import { JOB_SIGNALS } from '../launcher/job-signals.js';
import { HOSTS_OPTIONS, prepareAcrossHosts, readHostsRequest, withDefaultSize } from './run-hosts.js';

const RUN_DESCRIPTION = [
  'Starts N node processes running program.mjs, serves them PMI-1 (so each gets its rank, the job size',
  'and the key-value space through its runtime), forwards their output, and ends the whole job when one',
  'rank fails: a non-zero exit, a signal, a PMI abort, a broken PMI protocol, or an exit after closing',
  'its PMI connection without finalize (a program that never speaks PMI may exit 0 without it). The',
  `other ranks get SIGTERM, then SIGKILL after ${DEFAULT_GRACE_MS / 1000} s; one line on stderr names the rank, how it`,
  'failed and when, e.g.',
  '  dapl run: rank 2 exited with code 3 after 0.41 s; stopping the other 3 ranks',
  '',
  "Options end at the program: everything after it is passed to the program unchanged",
  "(dapl run -n 4 app.mjs --size 100); '--' may precede the program.",
  '',
  'Input and output: the launcher\'s stdin goes to rank 0 (the others get none). Every rank\'s stdout and',
  'stderr go to the launcher\'s, a whole line at a time (lines of two ranks never mix); a last line',
  'without a newline is printed with one when the rank ends.',
  '',
  'Environment of each rank: the launcher\'s, plus',
  `  PMI_FD=${PMI_FD_NUMBER} PMI_RANK=<rank> PMI_SIZE=<N>  the rank's PMI-1 socket (runtimeFromEnvironment() reads them)`,
  '  MPI_LOCALNRANKS=<N> MPI_LOCALRANKID=<rank>  ranks on this host and this one\'s index, as Hydra sets',
  '                                      them (tcp busy-polls by default only when N <= the host\'s CPUs)',
  '  DAPL_JOB_KEY=<64 hex digits>        a fresh random 32-byte job secret, the same for every rank',
  '  DAPL_CONFIG_CHECKED=1               dapl run has warned about DAPL_* variables and config keys',
  '                                      nothing declares (with the closest declared name); ranks do not repeat it',
  '  DAPL_PROVIDER=<KEY>                 with --provider',
  '  DAPL_CONFIG=<absolute path>         with --config',
  '(PMI_PORT and PMI_ID from an outer launcher are removed.)',
  '',
  'What a stuck job waits in: on --timeout, SIGINT, SIGTERM and SIGHUP, dapl run first asks every running',
  'rank what it is blocked in (the waits MPI, FMPL and the runtime declare) and prints one line each, e.g.',
  '  dapl run: rank 0 waits in MPI recv from rank 1 tag 9 (context 0) for 12.0 s',
  '  dapl run: rank 1 waits in MPI barrier on world for 12.0 s',
  'then stops them (a rank that does not answer within 1 s is named as such).',
  '',
  'SIGINT, SIGTERM and SIGHUP sent to dapl run are forwarded to every rank; a second one kills them.',
  'When nobody reads its output any more (dapl run ... | head), the job is stopped as by SIGPIPE.',
  '',
  'In-process (--in-process, and always with a provider whose capabilities say inProcess, such as a',
  'simulated one): the N ranks run as async tasks of dapl run itself, each importing its own instance',
  "of the program's modules (packages in node_modules are shared). A rank finds its rank, runtime, job",
  'key and configuration through its rank context (startJob() and runtimeFromEnvironment() read it), not',
  'through PMI variables; process.argv is the program and its arguments. Output, exit codes and the',
  "failure line are as above; a rank's process.exit(code), an error it does not catch, and a rank whose",
  'code ends without finalizing the runtime it used end the job; the other ranks are abandoned.',
  '',
  'Across hosts (--hosts h1:2,h2:2 or --hostfile F): each rank is started on its host by the launcher',
  "command (--launcher ssh, the default, runs 'ssh -x host command'; --launcher CMD runs 'CMD host command',",
  "as MPICH's -launcher-exec), which is given one shell command line; -n defaults to the hosts' total",
  'count. The ranks reach the PMI-1 server over TCP (PMI_PORT=<launcher address>:<port>, PMI_ID=<rank>)',
  'and must prove they hold the job key first (DAPL_PMI_AUTH=hmac-sha256; the key travels on the',
  "rank's stdin, never on a command line): a process that is not one of the job's ranks is refused",
  'before it can join or read the KVS. MPI_LOCALNRANKS/MPI_LOCALRANKID count the ranks on each host,',
  "and tcp's default interface is then the host's address that reaches the launcher. Output, exit",
  'codes, the failure line and --timeout are as on one host; a host that dies ends the job.',
  '',
  'Worker threads (always with a provider whose capabilities say workerThreads, such as shm): the N ranks',
  'run as worker threads of dapl run, each importing its own instance of the program; PMI goes over a',
  'MessagePort instead of PMI_FD, and everything else (output, signals, --timeout, exit codes and the',
  "failure line) is as for processes; a signal or a failing rank terminates the threads.",
  '',
  'Exit status:',
  ...exitCodeRows(),
].join('\n');

function exitCodeRows(): string[] {
  const width = Math.max(...RUN_EXIT_CODE_HELP.map(([code]) => code.length));
  return RUN_EXIT_CODE_HELP.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`);
}

/** Where the launcher hears SIGINT/SIGTERM: `process`, or a test's emitter. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/** What `dapl run` touches beyond `CliIo`; each defaults to the real thing. */
export interface RunCommandDeps {
  /** Forwarded to rank 0. Default `process.stdin`; `null`: rank 0 gets no stdin. */
  readonly stdin?: Readable | null;
  /** Default `process`. */
  readonly signals?: SignalSource;
  readonly spawnRank?: SpawnRank;
  readonly createPmiServer?: CreatePmiServer;
  readonly clock?: LauncherClock;
  readonly graceMs?: number;
}

/** `dapl run`, with its collaborators replaceable for tests; `runCommand` is the real one. */
export function createRunCommand(deps: RunCommandDeps = {}): CliCommand {
  return {
    name: 'run',
    summary: 'Run a program as a job of N ranks (the embedded PMI-1 launcher)',
    usage: 'dapl run -n N [--provider KEY] [--config FILE] [--tag-output] [--timeout S] [--in-process] [--hosts LIST | --hostfile FILE] [--launcher ssh|CMD] [--launcher-address ADDR] [--] program.mjs [args...]',
    description: RUN_DESCRIPTION,
    options: [
      { name: 'np', short: 'n', type: 'string', valueName: 'N', help: `Number of ranks (required): up to ${MAX_PROCESS_RANKS} processes, or as many as a simulated provider's maxNodes (at most ${MAX_RANKS})` },
      { name: 'provider', type: 'string', valueName: 'KEY', help: 'Provider for the ranks, passed as DAPL_PROVIDER; checked against the registry first' },
      { name: 'config', type: 'string', valueName: 'FILE', help: 'Config file for the launcher and the ranks, passed as DAPL_CONFIG (absolute)' },
      { name: 'tag-output', type: 'boolean', help: "Prefix every line a rank prints with '[<rank>] '" },
      { name: 'timeout', type: 'string', valueName: 'S', help: 'Stop the job after S seconds (decimals allowed) and exit 124' },
      { name: 'in-process', type: 'boolean', help: 'Run the ranks as async tasks in this process, each with its own instance of the program' },
      ...HOSTS_OPTIONS,
    ],
    positionals: ['program', 'args'],
    optionsEndAtFirstPositional: true,
    async run(parsed, io) {
      const hosts = await readHostsRequest(parsed, io.cwd);
      const request = parseRunArguments(withDefaultSize(parsed, hosts), io.cwd);
      const flags = request.provider === undefined ? {} : { provider: request.provider };
      const config = await DaplConfig.load({ env: io.env, cwd: io.cwd, flags, configFile: request.configFile });
      const registry = await createProviderRegistry(config);
      // An unknown key is a configuration error (3) before anything starts (load looks it up first).
      const provider = await registry.load(config.providerKey);
      // So is a setting the provider or an installed library does not declare, and a bad value of
      // one it does: every rank would stop on it.
      const section = config.resolveDeclaredSection(provider.name, provider.parameters, `provider ${provider.name}`);
      for (const library of await loadLibrarySections()) {
        const owner = `library ${packageName(library.specifier)}`;
        const { values } = config.resolveDeclaredSection(library.name, library.parameters, owner);
        // And settings the provider cannot serve (an MPI device that needs an extension it lacks).
        const problem = library.check?.(values, provider.name, provider.capabilities);
        if (problem !== undefined) throw new DatError(DatStatus.INVALID_PARAMETER, `${owner}: ${problem}`);
      }
      // What no rank would stop on but is most likely a typo: said once, here, for the whole job.
      for (const warning of await configurationWarnings(config, registry)) io.stderr.write(`dapl run: warning: ${warning}\n`);
      // A provider of simulated hardware needs every rank in one process.
      const inProcess = parsed.values['in-process'] === true || provider.capabilities.inProcess;
      const tooMany = rankLimitProblem(request.size, provider.name, isSimulatedProvider(provider), section);
      if (tooMany !== undefined) throw new UsageError(tooMany, 'run');
      const notRunnable = await programFileProblem(request.program);
      if (notRunnable !== undefined) {
        io.stderr.write(notRunnable);
        return RunExitCode.PROGRAM_NOT_FOUND;
      }
      if (inProcess && hosts !== undefined) throw new UsageError(`provider ${provider.name} runs every rank in this process: it cannot run across hosts`, 'run');
      if (inProcess) {
        return runInProcess({
          program: request.program,
          args: request.args,
          size: request.size,
          provider: request.provider,
          configFile: request.configFile,
          tagOutput: request.tagOutput,
          timeoutS: request.timeoutMs === undefined ? undefined : request.timeoutMs / 1000,
          stdout: io.stdout,
          stderr: io.stderr,
          env: io.env,
          cwd: io.cwd,
          signals: deps.signals ?? process,
        });
      }

      const logger = createRootLogger({ level: config.logLevel, destination: { write: (line: string) => io.stderr.write(line) } });
      const stdin = deps.stdin === undefined ? process.stdin : (deps.stdin ?? undefined);
      const jobKey = newJobKey();
      const pmiLogger = logger.child({ component: 'core:PmiServer' }, { level: config.logLevel === 'warn' ? 'error' : config.logLevel });
      const across = hosts === undefined ? undefined : await prepareAcrossHosts(hosts, request.size, jobKey, pmiLogger);
      const job = new Job(
        {
          size: request.size,
          program: request.program,
          args: request.args,
          cwd: io.cwd,
          env: jobEnvironment(io.env, { jobKey, provider: request.provider, configFile: request.configFile }),
          tagOutput: request.tagOutput,
          timeoutMs: request.timeoutMs,
          graceMs: deps.graceMs ?? DEFAULT_GRACE_MS,
          stdin,
        },
        {
          spawnRank: across?.spawnRank ?? deps.spawnRank ?? rankSpawnerFor(provider.capabilities),
          createPmiServer: across?.createPmiServer ?? deps.createPmiServer ?? createNodePmiServer,
          clock: deps.clock ?? realLauncherClock,
          stdout: io.stdout,
          stderr: io.stderr,
          // The launcher reports a rank's protocol error in its one line; the server's warning about it would repeat it.
          logger: pmiLogger,
        },
      );
      const signals = deps.signals ?? process;
      const onSignal = (signal: NodeJS.Signals): void => job.interrupt(signal);
      for (const s of JOB_SIGNALS) signals.on(s, onSignal);
      // A closed pipe on our output: nobody reads the ranks' output, so stop them as a shell
      // pipeline would (exit 141), instead of crashing on the write error and leaving them running.
      const onOutputError = (error: NodeJS.ErrnoException): void => {
        if (error.code === 'EPIPE') job.interrupt('SIGPIPE');
      };
      const outputs = [io.stdout, io.stderr].filter(isEmitter);
      for (const o of outputs) o.on('error', onOutputError);
      try {
        return exitCodeOf(await job.run());
      } finally {
        for (const s of JOB_SIGNALS) signals.off(s, onSignal);
        for (const o of outputs) o.off('error', onOutputError);
        // Stop reading our stdin, so that an open terminal or pipe does not keep `dapl` alive.
        if (stdin === process.stdin) stdin.pause();
        await across?.service.server.close();
      }
    },
  };
}

export const runCommand: CliCommand = createRunCommand();

function isEmitter<T>(stream: T): stream is T & NodeJS.EventEmitter {
  return typeof (stream as NodeJS.EventEmitter).on === 'function' && typeof (stream as NodeJS.EventEmitter).off === 'function';
}
