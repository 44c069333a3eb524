#!/usr/bin/env node
// MPI-LAPI's measurements (Banikazemi, Govindaraju, Blackmore, Panda: "MPI-LAPI: An Efficient
// Implementation of MPI for IBM RS/6000 SP Systems", §5-§6, Figs. 13-17) on the simulated SP (provider lapi, virtual
// time): ping-pong one-way time and streaming bandwidth of raw LAPI Amsend (waited on with a target
// counter, as the paper's LAPI curve), and of MPI_Send/MPI_Recv (MPI_Isend/MPI_Irecv for bandwidth)
// on the am device in its Base, Counters and Enhanced versions and on the channel device (the shape
// of the SP's native MPI: every message copied through buffers on both sides, paper §2). Each
// configuration is its own job (a rank has one device); the figures come out of the protocols and the
// provider's model (lapi/src/model.ts), not out of numbers per device.
//
//   node bench/mpi-lapi.mjs [--sizes 8,1024,...] [--reps 20] [--window 16] [--json FILE]
import { parseArgs } from 'node:util';
import { MemAccess, rankContext } from '@dapl/core';
import { reportResult, runDeviceJobs } from './lib/device-jobs.mjs';
import { benchRecord } from './lib/record.mjs';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '8,64,256,1024,4096,4097,16384,65536,262144' },
    reps: { type: 'string', default: '20' },
    window: { type: 'string', default: '16' },
    config: { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write('usage: node bench/mpi-lapi.mjs [--sizes LIST] [--reps N] [--window N] [--json FILE]\n\n--json FILE also writes the figures as a record (bench/lib/record.mjs).\n');
  process.exit(0);
}
const sizes = values.sizes.split(',').map(Number);
const reps = Number(values.reps);
const window = Number(values.window);
for (const [name, v] of [['--reps', reps], ['--window', window], ...sizes.map((s) => ['--sizes', s])]) {
  if (!Number.isSafeInteger(v) || v < (name === '--sizes' ? 0 : 1)) {
    process.stderr.write(`mpi-lapi: ${name} must be ${name === '--sizes' ? 'non-negative integers' : 'a positive integer'}, got ${String(v)}\n`);
    process.exit(2);
  }
}

/** The configurations, each a job: the raw LAPI curve is measured in the Enhanced job, beside MPI. */
const CONFIGS = [
  { key: 'enhanced', label: 'Enhanced', env: { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: 'enhanced' }, raw: true },
  { key: 'counters', label: 'Counters', env: { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: 'counters' } },
  { key: 'base', label: 'Base', env: { DAPL_MPI_DEVICE: 'am', DAPL_MPI_AM_VARIANT: 'base' } },
  // The channel device stands for IBM's native MPI, whose interrupt handler waits MP_INTRDELAY (1 µs by
  // default, IBM PE MPI Programming Guide) for more packets (Banikazemi et al. §6.1); LAPI's does not.
  { key: 'channel', label: 'channel', env: { DAPL_MPI_DEVICE: 'channel', DAPL_LAPI_INTERRUPT_DELAY_NS: '1000' } },
];
const RAW_HANDLER = 0x5241_0001;
const RAW_COUNTER = 0x5241_0002;

if (rankContext.getStore() !== undefined) await rank();
else await launch();

/** Parent: one job per configuration, then the tables beside the paper's statements. */
async function launch() {
  const args = ['--sizes', values.sizes, '--reps', values.reps, '--window', values.window];
  print(await runDeviceJobs(import.meta.url, 'lapi', CONFIGS.map((c) => ({ label: c.label, env: c.env, args: ['--config', c.key, ...args] }))));
}

/** A rank: the raw LAPI curve (Enhanced job only), then MPI's. Rank 0 prints one RESULT line. */
async function rank() {
  const { Mpi, Request } = await import('@dapl/mpi');
  const mpi = await Mpi.init();
  const world = mpi.world;
  const peer = 1 - world.rank;
  const config = CONFIGS.find((c) => c.key === values.config);
  const result = {};
  if (config.raw) result.lapi = await rawLapi(mpi, peer);
  const rows = [];
  for (const n of sizes) {
    const buf = new Uint8Array(Math.max(n, 1)).subarray(0, n);
    await world.barrier();
    // Ping-pong: MPI_Send and MPI_Recv; one-way time = half the round trip.
    await world.sendrecv(buf, peer, 1, buf, peer, 1); // warm-up: connection, registrations
    let start = mpi.wtime();
    for (let i = 0; i < reps; i++) {
      if (world.rank === 0) {
        await world.send(buf, peer, 2);
        await world.recv(buf, peer, 2);
      } else {
        await world.recv(buf, peer, 2);
        await world.send(buf, peer, 2);
      }
    }
    const latencyUs = ((mpi.wtime() - start) / (2 * reps)) * 1e6;
    // Bandwidth: a window of MPI_Isends, MPI_Irecvs at the other end, the last acknowledged.
    await world.barrier();
    const bufs = Array.from({ length: window }, () => new Uint8Array(n));
    start = mpi.wtime();
    for (let i = 0; i < reps; i++) {
      if (world.rank === 0) {
        await Request.waitAll(bufs.map((b) => world.isend(b, peer, 3)));
        await world.recv(new Uint8Array(0), peer, 4);
      } else {
        await Request.waitAll(bufs.map((b) => world.irecv(b, peer, 3)));
        await world.send(new Uint8Array(0), peer, 4);
      }
    }
    const bandwidthMBs = (n * window * reps) / ((mpi.wtime() - start) * 1e6);
    rows.push({ size: n, latencyUs, bandwidthMBs });
  }
  result[config.key] = rows;
  if (world.rank === 0) reportResult(result);
  await mpi.finalize();
}

/** Raw LAPI: Amsend into a registered buffer, the reply waited on with the target counter (LAPI_Waitcntr). */
async function rawLapi(mpi, peer) {
  const { job } = mpi;
  const am = job.ia.extension('active-messages');
  const max = Math.max(1, ...sizes);
  const lmr = job.connections.pz.registerLmr(new Uint8Array(max * window), MemAccess.ALL);
  am.registerHandler(RAW_HANDLER, (_uhdr, length) => ({ iov: length === 0 ? [] : [{ lmr, offset: 0, length }] }));
  const arrived = am.createCounter(RAW_COUNTER);
  const ep = await job.connections.endpoint(peer);
  const uhdr = new Uint8Array(8);
  const send = (n) => am.amsend(ep, RAW_HANDLER, uhdr, n === 0 ? [] : [{ lmr, offset: 0, length: n }], { target: RAW_COUNTER });
  const rows = [];
  for (const n of sizes) {
    await mpi.world.barrier();
    let start = mpi.wtime();
    for (let i = 0; i < reps; i++) {
      if (mpi.rank === 0) {
        send(n);
        await arrived.wait(1);
      } else {
        await arrived.wait(1);
        send(n);
      }
    }
    const latencyUs = ((mpi.wtime() - start) / (2 * reps)) * 1e6;
    await mpi.world.barrier();
    start = mpi.wtime();
    for (let i = 0; i < reps; i++) {
      if (mpi.rank === 0) {
        for (let w = 0; w < window; w++) send(n);
        await arrived.wait(1);
      } else {
        await arrived.wait(window);
        send(0);
      }
    }
    const bandwidthMBs = (n * window * reps) / ((mpi.wtime() - start) * 1e6);
    rows.push({ size: n, latencyUs, bandwidthMBs });
  }
  return rows;
}

function print(results) {
  const keys = ['lapi', 'base', 'counters', 'enhanced', 'channel'];
  const names = { lapi: 'LAPI', base: 'Base', counters: 'Counters', enhanced: 'Enhanced', channel: 'channel' };
  const at = (key, size) => results[key].find((r) => r.size === size);
  const out = (s) => process.stdout.write(`${s}\n`);
  out(`# mpi-lapi (dapl.ts, provider lapi, virtual time): ${reps} round trips a size; bandwidth windows of ${window} messages, ${reps} windows`);
  out('# One-way time (us), MPI_Send/MPI_Recv ping-pong (raw LAPI: Amsend + LAPI_Waitcntr)');
  out(`${'# Size'.padEnd(10)}${keys.map((k) => names[k].padStart(11)).join('')}`);
  for (const n of sizes) out(`${String(n).padEnd(10)}${keys.map((k) => at(k, n).latencyUs.toFixed(2).padStart(11)).join('')}`);
  out('# Bandwidth (MB/s), MPI_Isend/MPI_Irecv windows');
  out(`${'# Size'.padEnd(10)}${keys.map((k) => names[k].padStart(11)).join('')}`);
  for (const n of sizes) out(`${String(n).padEnd(10)}${keys.map((k) => at(k, n).bandwidthMBs.toFixed(2).padStart(11)).join('')}`);
  if (values.json !== undefined) {
    const record = benchRecord('mpi-lapi', { timeBase: 'virtual' });
    for (const k of keys) {
      for (const n of sizes) {
        record.add({ test: 'one-way time', provider: 'lapi', size: n, series: names[k], value: at(k, n).latencyUs, unit: 'us' });
        record.add({ test: 'bandwidth', provider: 'lapi', size: n, series: names[k], value: at(k, n).bandwidthMBs, unit: 'MB/s' });
      }
    }
    record.write(values.json);
  }
  const small = Math.min(...sizes);
  const short = sizes.filter((n) => n <= 4096);
  const ratio = (a, b, n) => at(a, n).latencyUs / at(b, n).latencyUs;
  const pct = (x) => `${((x - 1) * 100).toFixed(1)} %`;
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  out('# Beside the paper (Figs. 13-17), measured here:');
  out(`#  Fig. 13 "message transfer time of the MPI-LAPI [Base] implementation was too high": Base/LAPI at ${small} B = ${ratio('base', 'lapi', small).toFixed(2)}x`);
  const countersBetter = short.every((n) => at('counters', n).latencyUs < at('base', n).latencyUs);
  out(`#  Fig. 14 Counters "better performance for short messages (Eager)": Counters below Base at every size <= 4096 B: ${countersBetter ? 'yes' : 'NO'} (mean ${pct(mean(short.map((n) => ratio('counters', 'base', n))))} vs Base)`);
  const big = sizes.filter((n) => n > 4096);
  if (big.length > 0) out(`#     and no better above the eager limit, where the handshake keeps its completion handlers: Counters/Base above 4096 B, mean ${pct(mean(big.map((n) => ratio('counters', 'base', n))))}`);
  const enhanced = sizes.map((n) => ratio('enhanced', 'lapi', n));
  out(`#  Fig. 15 Enhanced "comes very close to that of the bare LAPI": Enhanced/LAPI ${pct(Math.min(...enhanced))} .. ${pct(Math.max(...enhanced))} over the sizes (eager sizes: up to ${pct(Math.max(...short.map((n) => ratio('enhanced', 'lapi', n))))})`);
  const againstCounters = (list) => (list.length === 0 ? 'no size' : `mean ${pct(mean(list.map((n) => ratio('enhanced', 'counters', n))))}`);
  out(`#     Enhanced / Counters: eager sizes ${againstCounters(short)} (data completion: LAPI's predefined completion against the target counter, neither with a thread switch); above the eager limit ${againstCounters(big)} (the handshake's handlers in the dispatcher's context)`);
  const crossing = sizes.find((n) => n >= 64 && at('enhanced', n).latencyUs < at('channel', n).latencyUs);
  out(`#  Fig. 16 MPI-LAPI below the native MPI above 256 B, up to 17.3 % (no copies): Enhanced below channel from ${crossing ?? 'no size'} B; best gain ${pct(Math.max(...sizes.map((n) => ratio('channel', 'enhanced', n))))}`);
  const bw = sizes.includes(65536) ? at('enhanced', 65536).bandwidthMBs : undefined;
  if (bw !== undefined) out(`#  Fig. 17 64 KiB bandwidth: Enhanced ${bw.toFixed(2)} MB/s, channel ${at('channel', 65536).bandwidthMBs.toFixed(2)} MB/s (paper: MPI-LAPI 83.35 MB/s, native MPI 68.93 MB/s, +20.9 %)`);
}
