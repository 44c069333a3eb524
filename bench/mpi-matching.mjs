#!/usr/bin/env node
// Matching scale at the MPI level (issue 5): rank 1 posts D receives with distinct tags, rank 0 sends
// them in reverse order (so each arrival matches the newest posted receive), for D = 10, 100, 1000.
// Reports the time per message at each depth (median of rounds) and its ratio to depth 10; the
// matching engine's cost must not grow with the number of outstanding receives (target: ≤ 2× at 1000).
//
//   node bench/mpi-matching.mjs [--provider tcp|ib|lapi|combuf] [--rounds N] [--messages N]
import { parseArgs } from 'node:util';
import { Mpi, Request } from '@dapl/mpi';
import { runAsJob } from './lib/job.mjs';

const { values } = parseArgs({
  options: {
    provider: { type: 'string', default: 'tcp' },
    rounds: { type: 'string', default: '7' },
    messages: { type: 'string', default: '20000' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write('usage: node bench/mpi-matching.mjs [--provider KEY] [--rounds N] [--messages N]\n');
  process.exit(0);
}

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const rounds = Number(values.rounds);
  const total = Number(values.messages);
  const none = new Int32Array(0);
  const results = [];
  for (const depth of [10, 100, 1000]) {
    const batches = Math.max(1, Math.floor(total / depth));
    const runs = [];
    for (let r = 0; r < rounds; r++) {
      await world.sendrecv(none, 1 - rank, 1, none, 1 - rank, 1);
      const start = mpi.wtime();
      for (let b = 0; b < batches; b++) {
        if (rank === 1) {
          const reqs = [];
          for (let t = 0; t < depth; t++) reqs.push(world.irecv(new Int32Array(1), 0, 100 + t));
          await world.send(none, 0, 2); // posted: go
          await Request.waitAll(reqs);
        } else {
          await world.recv(none, 1, 2);
          const one = new Int32Array(1);
          const sends = [];
          for (let t = depth - 1; t >= 0; t--) sends.push(world.isend(one, 1, 100 + t));
          await Request.waitAll(sends);
        }
      }
      runs.push(((mpi.wtime() - start) * 1e9) / (batches * depth));
    }
    runs.sort((a, b) => a - b);
    results.push({ depth, ns: runs[Math.floor(runs.length / 2)] });
  }
  if (rank === 1) {
    process.stdout.write(`# MPI matching scale (dapl.ts @dapl/mpi, provider ${mpi.provider}): D receives posted, sent in reverse order\n`);
    process.stdout.write(`# Depth   ns per message   ratio to depth 10\n`);
    for (const { depth, ns } of results) process.stdout.write(`${String(depth).padEnd(10)}${ns.toFixed(0).padStart(14)}${(ns / results[0].ns).toFixed(2).padStart(20)}\n`);
  }
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
