import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { BroadcastChannel, MessageChannel, Worker } from 'node:worker_threads';
import { THREAD_EXIT_CHANNEL, type ThreadExitNotice } from '../../runtime/worker-rank.js';
import type { RankExit, RankProcess, RankSpawnRequest } from '../rank-process.js';
import { messagePortDuplex } from './message-port-duplex.js';
import type { WorkerRankData } from './worker-rank-main.js';

const BOOTSTRAP = new URL('./worker-rank-main.js', import.meta.url);

/**
 * Start a rank as a worker thread of this process (DESIGN §4, shm): the program runs in the thread
 * with its own module graph; its PMI conversation with the launcher's server goes over a MessagePort;
 * its stdout and stderr are the thread's; `signal` terminates the thread. An error the program does
 * not catch is printed on the rank's stderr, as node prints it for a process. When the thread has
 * ended, its id is posted on `THREAD_EXIT_CHANNEL` so that peers sharing memory with it learn of it.
 * Threads share the launcher's working directory (a thread cannot change it).
 */
export function spawnWorkerRank(request: RankSpawnRequest): RankProcess {
  const { port1, port2 } = new MessageChannel();
  const env: Record<string, string> = { ...request.env };
  // A thread has no PMI socket of its own at fd 3: its PMI goes over the port.
  delete env.PMI_FD;
  const workerData: WorkerRankData = { program: request.program, args: request.args, rank: request.rank, size: Number(request.env.PMI_SIZE ?? 1), pmi: port2 };
  const worker = new Worker(BOOTSTRAP, { workerData, transferList: [port2], env, stdout: true, stderr: true, stdin: request.stdin, argv: [] });
  const threadId = worker.threadId;
  const stderr = new PassThrough();
  worker.stderr.pipe(stderr, { end: false });
  let uncaught: string | undefined;
  let signaled: NodeJS.Signals | undefined;
  let gone = false;
  worker.on('error', (error: unknown) => (uncaught = describeUncaught(error)));
  const exited = new Promise<RankExit>((resolve) => {
    worker.once('exit', (code) => {
      gone = true;
      announceExit({ threadId, code });
      void finished(worker.stderr)
        .catch(() => undefined)
        .then(() => {
          if (uncaught !== undefined) stderr.write(uncaught);
          stderr.end();
        });
      resolve(signaled !== undefined ? { kind: 'signaled', signal: signaled } : { kind: 'exited', code });
    });
  });
  return {
    stdin: worker.stdin ?? undefined,
    stdout: worker.stdout,
    stderr,
    pmi: messagePortDuplex(port1),
    exited,
    signal(signal) {
      if (gone) return;
      signaled ??= signal;
      void worker.terminate();
    },
  };
}

function announceExit(notice: ThreadExitNotice): void {
  const channel = new BroadcastChannel(THREAD_EXIT_CHANNEL);
  channel.postMessage(notice);
  channel.close();
}

function describeUncaught(error: unknown): string {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : `Uncaught ${String(error)}`;
  return `${text}\n`;
}
