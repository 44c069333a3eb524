import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex, PassThrough, type Readable } from 'node:stream';
import { PMI_FD_NUMBER } from './rank-environment.js';
import type { RankExit, RankProcess, RankSpawnRequest } from './rank-process.js';

/**
 * Start a rank as `node program args` with stdio 0–2 piped and a 4th pipe at fd 3 (on Unix Node makes
 * it a socket pair: the rank's PMI_FD). Each rank leads its own process group, so a signal reaches
 * whatever the rank started too, and a terminal's Ctrl-C reaches only the launcher, which forwards it once.
 */
export function spawnNodeRank(request: RankSpawnRequest): RankProcess {
  const child = spawn(process.execPath, [request.program, ...request.args], {
    cwd: request.cwd,
    env: request.env,
    // Index PMI_FD_NUMBER (3) of this array is the PMI socket.
    stdio: [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
  });
  return {
    stdin: child.stdin ?? undefined,
    stdout: child.stdout ?? endedStream(),
    stderr: child.stderr ?? endedStream(),
    pmi: child.stdio[PMI_FD_NUMBER] instanceof Duplex ? child.stdio[PMI_FD_NUMBER] : new PassThrough(),
    exited: exitOf(child),
    signal: (signal) => signalGroup(child, signal),
  };
}

/** How `child` ended (shared with the remote ranks' launcher processes). */
export function exitOf(child: ChildProcess): Promise<RankExit> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(signal !== null ? { kind: 'signaled', signal } : { kind: 'exited', code: code ?? 0 }));
    // 'error' also reports a failed kill; only one without a pid means the process never ran.
    child.on('error', (error) => {
      if (child.pid === undefined) resolve({ kind: 'not-started', message: error.message });
    });
  });
}

/** `signal` to `child`'s process group (it leads one: spawned detached). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone (ESRCH) or not ours: fall back to the process itself, which ignores a reaped child.
    child.kill(signal);
  }
}

export function endedStream(): Readable {
  const stream = new PassThrough();
  stream.end();
  return stream;
}
