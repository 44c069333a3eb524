#!/usr/bin/env node
// DAT-level RDMA-write ping-pong latency and streaming bandwidth of each simulated provider, in
// virtual time (OSU format), beside the paper figures they should approach — figures that come out
// of each model's hardware-level parameters, never put in. Then the simulator's own speed: events per
// wall-clock second for a ring of 256 and of 1,024 ranks.
//
//   node bench/sim-dat.mjs [--provider ib|ib-no-inline|lapi|combuf] [--laps N] [--quick] [--json FILE]
import { parseArgs } from 'node:util';
import { MemAccess, SimKernel } from '@dapl/core';
import { createCombufProvider } from '@dapl/provider-combuf';
import { createIbProvider } from '@dapl/provider-ib';
import { createLapiProvider } from '@dapl/provider-lapi';
import { benchRecord } from './lib/record.mjs';

const HELP = `usage: node bench/sim-dat.mjs [--provider ib|ib-no-inline|lapi|combuf] [--laps N] [--quick] [--json FILE] [-h]

RDMA write with immediate ping-pong (half round trip) and streaming bandwidth (window 16) per
simulated provider, in virtual time, beside the papers' figures; then events per wall-clock second of
the kernel for a 256-rank and a 1,024-rank ring (--laps laps, default 1000). --json FILE also writes
the figures as a record (bench/lib/record.mjs; bench/results/ keeps the current one).`;

const PROVIDERS = {
  ib: {
    create: (kernel) => createIbProvider({ kernel }),
    paper: 'the MVAPICH2-over-uDAPL paper (Chai et al.): uDAPL/VAPI small-message latency ~5-6 us (MVAPICH2 over it 6.7 us, 1 us less with inline); peak ~870-1000 MB/s',
  },
  'ib-no-inline': {
    create: (kernel) => createIbProvider({ kernel, parameters: { inlineBytes: 0 } }),
    paper: "the MVAPICH2-over-uDAPL paper (Chai et al.): the same, as the paper's uDAPL/VAPI sends (no inline data, Chai et al. §4.2) - the comparable figure",
  },
  lapi: {
    create: (kernel) => createLapiProvider({ kernel }),
    paper: 'the MPI-LAPI paper (Banikazemi et al.): SP switch up to 160 MB/s per node pair; MPI-LAPI 83.35 MB/s at 64 KiB (Fig. 17)',
  },
  combuf: {
    create: (kernel) => createCombufProvider({ kernel }),
    paper: 'the FMPL paper (Tatebe et al.): TCW-reused remote DMA 4.7 us; ~1000 MB/s link, FMPL 999 MB/s at 16 MB',
  },
};

const LATENCY_SIZES = [1, 8, 64, 512, 4096];
const BANDWIDTH_SIZES = [4096, 65536, 1 << 20, 16 << 20];
const WINDOW = 16;
const MAX = 16 << 20;

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** Two ranks of `name` under one kernel, connected, each exposing a MAX-byte window to the other. */
async function pair(name, body) {
  const kernel = new SimKernel();
  const provider = PROVIDERS[name].create(kernel);
  const server = deferred();
  const windows = [deferred(), deferred()];
  const finished = [deferred(), deferred()];
  const results = [];
  const main = (rank) => async () => {
    const clock = kernel.clock(rank);
    const ia = await provider.openIa({}, { rank, size: 2, clock });
    try {
      const pz = ia.createPz();
      const [recv, request, connect] = [ia.createEvd(), ia.createEvd(), ia.createEvd()];
      const ep = ia.createEp(pz, { recv, request, connect }, { maxRequestDtos: 256 });
      if (rank === 1) {
        const crs = ia.createEvd();
        const psp = await ia.createPspAny(crs);
        server.resolve({ address: ia.address, connQual: psp.connQual });
        (await crs.wait()).request.accept(ep);
      } else {
        const { address, connQual } = await server.promise;
        ep.connect(address, connQual);
      }
      const up = await connect.wait();
      if (up.type !== 'connection-established') throw new Error(`${name} rank ${rank}: ${up.type}`);
      const buf = new Uint8Array(MAX);
      const lmr = pz.registerLmr(buf, MemAccess.ALL);
      windows[rank].resolve(pz.createRmr().bind(lmr, 0, MAX, MemAccess.REMOTE));
      const remote = await windows[1 - rank].promise;
      results[rank] = await body({ rank, clock, ep, recv, request, lmr, remote });
      // Neither rank closes while the other may still need it (a last write's acknowledgement).
      finished[rank].resolve();
      await Promise.all(finished.map((f) => f.promise));
    } finally {
      await ia.close();
    }
  };
  const run = await kernel.run([main(0), main(1)]);
  if (run.outcome !== 'completed') throw new Error(`${name}: the run ${run.outcome}: ${run.failures.map((f) => `rank ${f.rank}: ${f.error?.message ?? f.error}`).join("; ")}`);
  return results[0];
}

/** The last write of a rank is signaled and awaited, so the rank does not close before it is delivered. */
async function lastWrite(ep, request, iov, remote, immediate) {
  ep.postRdmaWrite(iov, 'last', remote, { immediate });
  const e = await request.wait();
  if (e.type !== 'dto-completion' || e.status !== 'DAT_DTO_SUCCESS') throw new Error(`last write: ${e.type} ${e.status}`);
}

async function doorbell(recv) {
  const e = await recv.wait();
  if (e.type !== 'dto-completion' || e.op !== 'recv-immediate' || e.status !== 'DAT_DTO_SUCCESS') throw new Error(`unexpected ${e.type} ${e.op} ${e.status}`);
  return e;
}

/** Virtual half round trip of an RDMA write with immediate of `size` bytes, after `warm` warm-up trips. */
function latency(name, size, iters) {
  return pair(name, async ({ rank, clock, ep, recv, request, lmr, remote }) => {
    const iov = [{ lmr, offset: 0, length: size }];
    const quiet = { immediate: 0, suppressCompletion: true };
    const trips = iters + 2;
    let start = 0;
    for (let i = 0; i < trips; i++) {
      if (i === 2) start = clock.nowNs; // the first trips pay send rights / TCW creation / connection set-up
      if (rank === 0) {
        ep.postRdmaWrite(iov, i, remote, quiet);
        await doorbell(recv);
      } else {
        await doorbell(recv);
        if (i === trips - 1) await lastWrite(ep, request, iov, remote, 0);
        else ep.postRdmaWrite(iov, i, remote, quiet);
      }
    }
    return (clock.nowNs - start) / iters / 2;
  });
}

/** MB/s of WINDOW writes of `size` bytes per round, each round closed by a 0-byte reply. */
function bandwidth(name, size, rounds) {
  return pair(name, async ({ rank, clock, ep, recv, request, lmr, remote }) => {
    const iov = [{ lmr, offset: 0, length: size }];
    const none = [];
    let start = 0;
    for (let round = 0; round < rounds + 1; round++) {
      if (round === 1) start = clock.nowNs;
      if (rank === 0) {
        for (let w = 0; w < WINDOW; w++) ep.postRdmaWrite(iov, w, remote, w === WINDOW - 1 ? { immediate: round, suppressCompletion: true } : { suppressCompletion: true });
        await doorbell(recv);
      } else {
        await doorbell(recv);
        if (round === rounds) await lastWrite(ep, request, none, remote, round);
        else ep.postRdmaWrite(none, 'ack', remote, { immediate: round, suppressCompletion: true });
      }
    }
    const seconds = (clock.nowNs - start) / 1e9;
    return (size * WINDOW * rounds) / seconds / 1e6;
  });
}

/** Events per wall-clock second: one token around a ring of `size` ranks, `laps` times. */
async function ringSpeed(size, laps) {
  const kernel = new SimKernel();
  const waiting = new Array(size);
  const pending = new Uint32Array(size);
  const deliver = (rank) => {
    const w = waiting[rank];
    if (w === undefined) pending[rank]++;
    else {
      waiting[rank] = undefined;
      w();
    }
  };
  const recv = (rank) => {
    if (pending[rank] > 0) {
      pending[rank]--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (waiting[rank] = resolve));
  };
  const ranks = Array.from({ length: size }, (_, r) => async () => {
    const clock = kernel.clock(r);
    const next = (r + 1) % size;
    const send = () => kernel.schedule(clock.nowNs + 1000, deliver, next);
    if (r === 0) send();
    for (let lap = 0; lap < laps; lap++) {
      await recv(r);
      if (r === 0 && lap === laps - 1) break;
      clock.charge(10);
      send();
    }
  });
  const { stats } = await kernel.run(ranks);
  return stats;
}

const pad = (v, n) => String(v).padEnd(n);

async function main() {
  const { values } = parseArgs({
    options: {
      provider: { type: 'string' },
      laps: { type: 'string', default: '1000' },
      quick: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${HELP}\n`);
  const names = values.provider === undefined ? Object.keys(PROVIDERS) : [values.provider];
  for (const name of names) {
    if (!(name in PROVIDERS)) {
      process.stderr.write(`sim-dat: --provider must be one of ${Object.keys(PROVIDERS).join(', ')}, got ${name}\n`);
      process.exit(2);
    }
  }
  const laps = Number(values.laps);
  if (!Number.isInteger(laps) || laps < 1) {
    process.stderr.write('sim-dat: --laps must be a positive integer\n');
    process.exit(2);
  }
  // The record holds the virtual-time figures only; the simulator's own speed is a wall-clock figure of the host.
  const record = benchRecord('sim-dat', { timeBase: 'virtual' });
  const iters = values.quick ? 5 : 50;
  const rounds = values.quick ? 2 : 8;
  for (const name of names) {
    process.stdout.write(`# ${name}: DAT RDMA write with immediate, virtual time\n# ${PROVIDERS[name].paper}\n`);
    process.stdout.write(`# ${pad('Size', 10)}Latency (us)\n`);
    for (const size of LATENCY_SIZES) {
      const us = (await latency(name, size, iters)) / 1000;
      record.add({ test: 'latency', provider: name, size, series: 'DAT RDMA write', value: us, unit: 'us' });
      process.stdout.write(`${pad(size, 12)}${us.toFixed(2)}\n`);
    }
    process.stdout.write(`# ${pad('Size', 10)}Bandwidth (MB/s, window ${WINDOW})\n`);
    for (const size of BANDWIDTH_SIZES) {
      const mbs = await bandwidth(name, size, rounds);
      record.add({ test: 'bandwidth', provider: name, size, series: 'DAT RDMA write', value: mbs, unit: 'MB/s' });
      process.stdout.write(`${pad(size, 12)}${mbs.toFixed(2)}\n`);
    }
    process.stdout.write('\n');
  }
  if (values.json !== undefined) record.write(values.json);
  process.stdout.write(`# simulator speed: one token around a ring, ${laps} laps (events per wall-clock second)\n`);
  process.stdout.write(`# ${pad('Ranks', 10)}${pad('Events', 12)}${pad('Wall (ms)', 12)}Events/s\n`);
  for (const size of [256, 1024]) {
    const stats = await ringSpeed(size, values.quick ? Math.max(1, laps / 10) : laps);
    process.stdout.write(`${pad(size, 12)}${pad(stats.eventsProcessed, 12)}${pad(stats.wallMs.toFixed(0), 12)}${Math.round(stats.eventsPerSecond)}\n`);
  }

}

await main();
