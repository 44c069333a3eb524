#!/usr/bin/env node
// Two-sided MPI with and without MPI-2 windows open, for the claim of the patent "Implementing MPI-2
// one-sided communication on LAPI active messages" (IBM): "Two sided bandwidth and latency for point to
// point are not affected". Between ranks 0 and 1: the 8-byte ping-pong one-way time (osu_latency's
// loop) and the 64 KiB streaming bandwidth (a window of 16 isends answered by one ack), first with no
// window, then with two windows allocated and an access epoch open on each (a fence epoch and a shared
// lock), the same exchanges again.
//
//   node bench/rma-two-sided.mjs [--provider lapi|ib|combuf|tcp] [--iterations N] [--json FILE]
import { Mpi, Request, Win } from '@dapl/mpi';
import { runAsJob } from './lib/job.mjs';
import { mpiPingPong } from './lib/mpi-ping-pong.mjs';
import { benchOptions } from './lib/options.mjs';
import { benchRecord } from './lib/record.mjs';

const HELP = `usage: node bench/rma-two-sided.mjs [--provider KEY] [--iterations N] [--json FILE]

8-byte one-way time and 64 KiB bandwidth of MPI send/recv between two ranks with no window, then
with two windows open (a fence epoch and a lock epoch), in virtual time on a simulated provider.

  --provider KEY     lapi (default), ib, combuf, tcp
  --iterations N     round trips and windows per figure (default 50)
  --json FILE        also write the figures as a record (bench/lib/record.mjs)
  -h, --help         this text`;

const { values, integer } = benchOptions('rma-two-sided', HELP, {
  provider: { type: 'string', default: 'lapi' },
  iterations: { type: 'string', default: '50' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
const iterations = integer('iterations', 1);
const BANDWIDTH_BYTES = 64 * 1024;
const WINDOW = 16;

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const peer = 1 - rank;
  const small = new Uint8Array(8);
  const large = Array.from({ length: WINDOW }, () => new Uint8Array(BANDWIDTH_BYTES));
  const ack = new Uint8Array(4);

  const latency = async () => {
    await mpiPingPong(world, small, 5);
    const start = mpi.wtime();
    await mpiPingPong(world, small, iterations);
    return ((mpi.wtime() - start) / (2 * iterations)) * 1e6;
  };
  const bandwidth = async () => {
    const burst = async () => {
      if (rank === 0) {
        await Request.waitAll(large.map((b) => world.isend(b, peer, 5)));
        await world.recv(ack, peer, 6);
      } else {
        await Request.waitAll(large.map((b) => world.irecv(b, peer, 5)));
        await world.send(ack, peer, 6);
      }
    };
    await burst();
    const start = mpi.wtime();
    for (let i = 0; i < iterations; i++) await burst();
    return (BANDWIDTH_BYTES * WINDOW * iterations) / (mpi.wtime() - start) / 1e6;
  };

  const closed = { latency: await latency(), bandwidth: await bandwidth() };
  const fenced = await Win.allocate(world, 4096);
  const locked = await Win.allocate(world, 4096);
  await fenced.fence();
  await locked.lock(peer, 'shared');
  const open = { latency: await latency(), bandwidth: await bandwidth() };
  await locked.unlock(peer);
  await fenced.fence();
  await locked.free();
  await fenced.free();

  if (rank === 0) {
    const simulated = ['combuf', 'ib', 'lapi'].includes(mpi.provider);
    const out = (s) => process.stdout.write(`${s}\n`);
    out(`# Two-sided MPI with and without windows open (dapl.ts @dapl/mpi, provider ${mpi.provider}${simulated ? ', virtual time' : ''})`);
    out(`# ${''.padEnd(24)}${'no window'.padStart(12)}${'window open'.padStart(14)}${'ratio'.padStart(8)}`);
    out(`  ${'8 B one-way time (us)'.padEnd(24)}${closed.latency.toFixed(3).padStart(12)}${open.latency.toFixed(3).padStart(14)}${(open.latency / closed.latency).toFixed(3).padStart(8)}`);
    out(`  ${'64 KiB bandwidth (MB/s)'.padEnd(24)}${closed.bandwidth.toFixed(2).padStart(12)}${open.bandwidth.toFixed(2).padStart(14)}${(open.bandwidth / closed.bandwidth).toFixed(3).padStart(8)}`);
    if (values.json !== undefined) {
      const record = benchRecord('rma-two-sided', { timeBase: simulated ? 'virtual' : 'wall' });
      for (const [series, figures] of [['no window', closed], ['window open', open]]) {
        record.add({ test: 'one-way time', provider: mpi.provider, size: 8, series, value: figures.latency, unit: 'us' });
        record.add({ test: 'bandwidth', provider: mpi.provider, size: BANDWIDTH_BYTES, series, value: figures.bandwidth, unit: 'MB/s' });
      }
      record.write(values.json);
    }
  }
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
