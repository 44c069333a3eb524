import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { JOB_KEY_ENV } from '../config/core-parameters.js';
import { LOCAL_RANK_ENV, LOCAL_RANKS_ENV } from '../runtime/local-processes.js';
import { PMI_AUTH_ENV, PMI_AUTH_SCHEME } from '../runtime/pmi/pmi-port-auth.js';
import type { RankProcess, RankSpawnRequest, SpawnRank } from './rank-process.js';
import { endedStream, exitOf, signalGroup } from './spawn-node-rank.js';

export interface RemoteRanks {
  /** The launcher command and its options (`['ssh', '-x']`, or `--launcher CMD` split at spaces); it is given `host command`. */
  readonly launcher: readonly string[];
  /** The host of each rank. */
  readonly placement: readonly string[];
  /** `host:port` of the job's PMI server. */
  readonly pmiPort: string;
  /** The stream standing for each rank's PMI connection. */
  readonly pmiLink: (rank: number) => Duplex;
  /** The node binary to run on the hosts. Default: this one's path. */
  readonly node?: string;
}

/** The variables of a local rank's PMI socket: a remote rank connects to PMI_PORT instead. */
const LOCAL_PMI_VARIABLES = ['PMI_FD', 'PMI_RANK', 'PMI_SIZE'];
/** Forwarded on the remote command line besides the job's own: a remote shell has none of ours. */
const FORWARDED = /^(DAPL_|NODE_OPTIONS$|NODE_PATH$)/;

/**
 * Starts each rank on its host through the launcher command, as MPICH's Hydra does with ssh: the
 * command is given the host and one shell command line (`sh -c '…'`), which changes to the working
 * directory, reads the job key from the first line of its stdin (so the key is on no command line),
 * and runs `node program args` with the rank's PMI_PORT, PMI_ID, DAPL_PMI_AUTH, MPI_LOCALNRANKS and
 * MPI_LOCALRANKID and the job's DAPL_ settings. The launcher command's own exit is the rank's.
 */
export function remoteRankSpawner(remote: RemoteRanks): SpawnRank {
  const localCount = new Map<string, number>();
  const localIndex = remote.placement.map((host) => {
    const index = localCount.get(host) ?? 0;
    localCount.set(host, index + 1);
    return index;
  });
  return (request: RankSpawnRequest): RankProcess => {
    const host = remote.placement[request.rank];
    const rankVars: Record<string, string> = {
      PMI_PORT: remote.pmiPort,
      PMI_ID: String(request.rank),
      [PMI_AUTH_ENV]: PMI_AUTH_SCHEME,
      [LOCAL_RANKS_ENV]: String(localCount.get(host)),
      [LOCAL_RANK_ENV]: String(localIndex[request.rank]),
    };
    const forwarded = Object.entries(request.env).filter(([name]) => FORWARDED.test(name) && name !== JOB_KEY_ENV && !(name in rankVars));
    const assignments = [...forwarded, ...Object.entries(rankVars)].map(([name, value]) => shellQuote(`${name}=${value}`));
    const program = [remote.node ?? process.execPath, request.program, ...request.args].map(shellQuote).join(' ');
    const script = `cd ${shellQuote(request.cwd)} 2>/dev/null; IFS= read -r ${JOB_KEY_ENV}; export ${JOB_KEY_ENV}; exec env ${assignments.join(' ')} ${program}`;
    const localEnv: Record<string, string> = { ...request.env };
    for (const name of LOCAL_PMI_VARIABLES) delete localEnv[name];
    const [command, ...options] = remote.launcher;
    const child = spawn(command, [...options, host, `sh -c ${shellQuote(script)}`], { cwd: request.cwd, env: localEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child.stdin?.on('error', () => undefined); // EPIPE when the rank never reads its stdin
    child.stdin?.write(`${request.env[JOB_KEY_ENV] ?? ''}\n`);
    if (!request.stdin) child.stdin?.end();
    return {
      stdin: request.stdin ? (child.stdin ?? undefined) : undefined,
      stdout: child.stdout ?? endedStream(),
      stderr: child.stderr ?? endedStream(),
      pmi: remote.pmiLink(request.rank),
      exited: exitOf(child),
      signal: (signal) => signalGroup(child, signal),
    };
  };
}

/** `text` as one word of a POSIX shell. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
