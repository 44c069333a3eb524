#!/usr/bin/env node
// MPI with hundreds of nonblocking receives outstanding, as Table 2 of the FMPL paper (Tatebe et al.,
// "FMPL: a fast message-passing library for remote memory operations", §5.1) measures it: 4-byte
// one-way latency while 200 receives stay posted, and the gap between consecutive MPI_Irecv calls
// when 200 are posted in a row. Rank 1 keeps 200 receives outstanding: each message it receives
// (tag i) is answered with an acknowledgement after it posts the receive for tag i + 200, so every
// iteration posts one receive against 200 queued ones. With mpi.matching=linear (DAPL_MPI_MATCHING)
// each of those posts is charged as a scan of every queued entry (packages/mpi/src/adi/costs.ts); with
// the default, indexed, it is not.
//
//   node bench/mpi-outstanding.mjs [--provider combuf|ib|lapi|tcp] [--outstanding 200] [--json FILE]
import { Mpi, Request } from '@dapl/mpi';
import { runAsJob } from './lib/job.mjs';
import { benchOptions } from './lib/options.mjs';
import { benchRecord } from './lib/record.mjs';

const HELP = `usage: node bench/mpi-outstanding.mjs [--provider KEY] [--outstanding N] [--json FILE]

4-byte one-way latency with N receives kept outstanding, and the gap between consecutive irecv
calls when N are posted in a row (the FMPL paper's Table 2), on @dapl/mpi between two ranks.
mpi.matching (DAPL_MPI_MATCHING=linear|indexed) decides whether posting scans the queues.

  --provider KEY     combuf (default), ib, lapi, tcp
  --outstanding N    receives kept posted (default 200)
  --json FILE        also write the figures as a record (bench/lib/record.mjs)
  -h, --help         this text`;

const { values, integer } = benchOptions('mpi-outstanding', HELP, {
  provider: { type: 'string', default: 'combuf' },
  outstanding: { type: 'string', default: '200' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
const outstanding = integer('outstanding', 1);

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const none = new Uint8Array(0);
  const ack = new Uint8Array(4);
  const one = new Uint8Array(4);
  const FIRST = 1000;
  /** One round: `outstanding` receives posted (the gap per irecv), then `outstanding` ping-pongs with as many kept posted. */
  const round = async () => {
    let gap = 0;
    const posted = new Map();
    if (rank === 1) {
      const start = mpi.wtime();
      for (let i = 0; i < outstanding; i++) posted.set(FIRST + i, world.irecv(new Uint8Array(4), 0, FIRST + i));
      gap = (mpi.wtime() - start) / outstanding;
      await world.send(none, 0, 2); // all posted: go
    } else await world.recv(none, 1, 2);
    const start = mpi.wtime();
    for (let i = 0; i < outstanding; i++) {
      if (rank === 0) {
        const answer = world.irecv(ack, 1, 3);
        await world.send(one, 1, FIRST + i);
        await answer.wait();
      } else {
        await posted.get(FIRST + i).wait();
        posted.delete(FIRST + i);
        posted.set(FIRST + outstanding + i, world.irecv(new Uint8Array(4), 0, FIRST + outstanding + i));
        await world.send(ack, 0, 3);
      }
    }
    const oneWay = (mpi.wtime() - start) / (2 * outstanding);
    // The receives still posted are for messages that never come: satisfy them so the round ends clean.
    if (rank === 0) for (let i = 0; i < outstanding; i++) await world.send(one, 1, FIRST + outstanding + i);
    else await Request.waitAll([...posted.values()]);
    await world.barrier();
    return { gap, oneWay };
  };
  await round(); // warm-up: connections, registrations
  const got = await round();
  const gaps = new Float64Array(1);
  if (rank === 1) await world.send(new Float64Array([got.gap]), 0, 4);
  else await world.recv(gaps, 1, 4);
  if (rank === 0) {
    const simulated = ['combuf', 'ib', 'lapi'].includes(mpi.provider);
    const matching = process.env.DAPL_MPI_MATCHING ?? 'indexed';
    const out = (s) => process.stdout.write(`${s}\n`);
    out(`# MPI, ${outstanding} receives outstanding (dapl.ts @dapl/mpi, provider ${mpi.provider}${simulated ? ', virtual time' : ''}, mpi.matching ${matching})`);
    out(`4-byte one-way latency, ${outstanding} receives outstanding  ${(got.oneWay * 1e6).toFixed(2)} us   (the FMPL paper's Hitachi MPI: 945.8 us)`);
    out(`gap between consecutive irecv calls                  ${(gaps[0] * 1e6).toFixed(2)} us   (Hitachi MPI: 370.1 us)`);
    if (values.json !== undefined) {
      const record = benchRecord('mpi-outstanding', { timeBase: simulated ? 'virtual' : 'wall', notes: [`mpi.matching ${matching}`] });
      record.add({ test: `one-way latency, ${outstanding} receives outstanding`, provider: mpi.provider, size: 4, series: 'MPI', value: got.oneWay * 1e6, unit: 'us' });
      record.add({ test: `irecv gap, ${outstanding} receives outstanding`, provider: mpi.provider, size: 4, series: 'MPI', value: gaps[0] * 1e6, unit: 'us' });
      record.write(values.json);
    }
  }
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
