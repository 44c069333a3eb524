/**
 * The first module of a worker-thread rank (`spawnWorkerRank`): declares the rank and its PMI port,
 * makes `process.argv` the program's, then imports the program, which gets its own module graph in
 * this thread. An error the program does not catch ends the thread with code 1, as it ends a process.
 */
import { pathToFileURL } from 'node:url';
import { workerData, type MessagePort } from 'node:worker_threads';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { setWorkerRank } from '../../runtime/worker-rank.js';
import { messagePortDuplex } from './message-port-duplex.js';

/** What `spawnWorkerRank` hands the thread. */
export interface WorkerRankData {
  readonly program: string;
  readonly args: readonly string[];
  readonly rank: number;
  readonly size: number;
  readonly pmi: MessagePort;
}

const data = workerData as WorkerRankData;
let opened = false;
setWorkerRank({
  rank: data.rank,
  size: data.size,
  openPmiStream() {
    if (opened) throw new DatError(DatStatus.INVALID_STATE, `rank ${data.rank}'s PMI stream is already open: a worker-thread rank has one runtime`);
    opened = true;
    return messagePortDuplex(data.pmi);
  },
});
process.argv.splice(1, process.argv.length - 1, data.program, ...data.args);
await import(pathToFileURL(data.program).href);
