// Preloaded (`node --import`) into a `dapl run` of a simulated provider, whose ranks run in this
// process: times every collective call of every rank on its own clock (virtual time) and, when the
// process exits, writes the calls to the JSON file DAPL_COLLECTIVE_TIMING names, for
// bench/npb-phases.mjs. The ranks' programs are not changed: Comm's collectives are wrapped here.
import { writeFileSync } from 'node:fs';
import { rankContext } from '@dapl/core';
import { Comm } from '@dapl/mpi';

/** The collectives timed (those Comm has). */
export const TIMED_COLLECTIVES = ['barrier', 'bcast', 'reduce', 'allreduce', 'gather', 'gatherv', 'scatter', 'scatterv', 'allgather', 'allgatherv', 'alltoall', 'alltoallv', 'alltoallw', 'reduceScatter', 'scan', 'exscan'];

const out = process.env.DAPL_COLLECTIVE_TIMING;
if (out !== undefined) {
  /** Per call: rank, collective, its index among that rank's calls of it (0, 1, …), start and end in µs. */
  const calls = [];
  const counts = new Map();
  for (const name of TIMED_COLLECTIVES) {
    const original = Comm.prototype[name];
    if (typeof original !== 'function') continue;
    Comm.prototype[name] = async function timed(...args) {
      const context = rankContext.getStore();
      if (context === undefined) return original.apply(this, args);
      const key = `${context.rank}:${name}`;
      const index = counts.get(key) ?? 0;
      counts.set(key, index + 1);
      const start = context.runtime.clock.now() * 1e6;
      try {
        return await original.apply(this, args);
      } finally {
        calls.push({ rank: context.rank, name, index, start, end: context.runtime.clock.now() * 1e6 });
      }
    };
  }
  process.on('exit', () => writeFileSync(out, JSON.stringify(calls)));
}
