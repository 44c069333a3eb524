import { Fmpl } from '@dapl/fmpl';
import { Mpi } from '@dapl/mpi';
import { runAsJob } from './lib/job.mjs';
const which = process.argv[2];
async function main() {
  const lib = which === 'mpi' ? await Mpi.init() : await Fmpl.init({ matchingAreas: 8 });
  const rank = which === 'mpi' ? lib.world.rank : lib.rank;
  const peer = 1 - rank;
  const buf = new Uint8Array(8);
  const send = which === 'mpi' ? () => lib.world.send(buf, peer, 1) : () => lib.send(buf, peer, 1);
  const recv = which === 'mpi' ? () => lib.world.recv(buf, peer, 1) : () => lib.recv(buf, peer, 1);
  const line = [];
  if (process.env.X_SLEEP) { await new Promise((r) => setTimeout(r, Number(process.env.X_SLEEP))); await (which === "mpi" ? lib.world.barrier() : lib.barrier()); }
  for (let round = 0; round < 16; round++) {
    const reps = 500;
    const start = lib.wtime();
    for (let i = 0; i < reps; i++) {
      if (rank === 0) { await send(); await recv(); } else { await recv(); await send(); }
    }
    line.push(((lib.wtime() - start) / (2 * reps) * 1e6).toFixed(1));
  }
  if (rank === 0) console.log(which, line.join(' '));
  await lib.finalize();
}
await runAsJob(import.meta.url, 2, 'tcp', main);
