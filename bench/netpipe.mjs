#!/usr/bin/env node
// NetPIPE-style throughput curve (NetPIPE's block sizes, each with its ±3-byte perturbations, 1 B to
// 8 MiB; throughput in Mbit/s from the one-way time of a ping-pong, NetPIPE's columns) over real tcp
// between two processes, for raw Node sockets, DAT send/recv on the tcp provider, MPI on the channel
// device (MPICH's Channel Interface, Selvarajan's MPICH on MP_Lite; non-blocking, and blocking as a
// column of its own) and MPI on the rdma device. A job has
// one MPI device, so each device is a job of its own; within a job the MPI and raw rounds of a size
// alternate (and DAT's, in the first job), and each comparison with raw TCP is a median of paired
// ratios: a round of MPI against the raw round right after it, so drift of a loaded host hits both
// sides of each pair alike. Sizes from 1 MiB get `--big-rounds` pairs (default 9). The thesis's claims
// (Selvarajan, "Implementation of MPICH on top of MP_Lite", ch. 7, Figs. 7.1-7.6) are checked on this machine and printed beside
// its figures: MPI over the channel device within 10 % of raw TCP from 1 MiB up; a dip at the 128 kB
// eager-to-rendezvous switch, gone with a 512 KiB eager limit (both are run). Raw TCP is what a careful
// Node program does (RawEcho): Nagle off, each message read with `onread` straight into one
// preallocated buffer (no copy, no allocation per read; one connection per direction, since Node
// reads so only on sockets it connects), sent with one write, and no busy polling: its event loop
// sleeps between messages, where the tcp provider under the MPI and DAT columns polls for `tcp.pollUs`
// when the launcher says each process has a CPU (`tcp.busyPoll=auto`).
//
//   node bench/netpipe.mjs [--max BYTES] [--rounds N] [--big-rounds N] [--quick] [--json]
import { connect, createServer } from 'node:net';
import { hasPmiEnvironment } from '@dapl/core';
import { DatPair } from './lib/dat-pair.mjs';
import { reportResult, runDeviceJobs } from './lib/device-jobs.mjs';
import { median } from './lib/median.mjs';
import { benchOptions } from './lib/options.mjs';

const HELP = `usage: node bench/netpipe.mjs [--max BYTES] [--rounds N] [--big-rounds N] [--quick] [--json]

NetPIPE-style throughput over real tcp between two processes: raw Node sockets, DAT send/recv, MPI
on the channel device (eager limit 128 KiB and 512 KiB, and in the blocking mode) and on the rdma
device, interleaved; each column beside raw TCP as the median of paired ratios.

  --max BYTES        largest block size (default 8388608)
  --rounds N         ping-pong rounds per size below 1 MiB (default 3)
  --big-rounds N     paired rounds per size from 1 MiB up (default 9)
  --quick            every fourth size below 64 KiB, fewer repetitions
  --json             the figures as one JSON object on stdout, after the table
  -h, --help         this text`;

const { values, integer } = benchOptions('netpipe', HELP, {
  max: { type: 'string', default: String(8 << 20) },
  rounds: { type: 'string', default: '3' },
  'big-rounds': { type: 'string', default: '9' },
  json: { type: 'boolean', default: false },
  quick: { type: 'boolean', default: false },
  // Internal: the launcher's child jobs run one device each.
  job: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
const max = integer('max', 1);
const rounds = integer('rounds', 1);
const bigRounds = integer('big-rounds', 1);
/** Sizes from here get `--big-rounds` rounds: where the claim about raw throughput is checked. */
const BIG = 1 << 20;
const roundsFor = (n) => (n >= BIG ? bigRounds : rounds);

/** The jobs: raw sockets are measured in each, beside its MPI device; DAT in the first. */
const JOBS = [
  { key: 'channel', label: 'MPI channel', env: { DAPL_MPI_DEVICE: 'channel' }, baselines: true },
  { key: 'channel512', label: 'channel 512K', env: { DAPL_MPI_DEVICE: 'channel', DAPL_MPI_CHANNEL_EAGER_LIMIT: String(512 * 1024) } },
  { key: 'rdma', label: 'MPI rdma', env: { DAPL_MPI_DEVICE: 'rdma' } },
  // The thesis's blocking channel against the non-blocking one: each against its own raw rounds, so a host's drift between the jobs cancels.
  { key: 'blocking', label: 'channel block', env: { DAPL_MPI_DEVICE: 'channel', DAPL_MPI_CHANNEL_MODE: 'blocking' } },
];
const COLUMNS = ['raw', 'dat', 'channel', 'channel512', 'rdma', 'blocking'];
/** The columns compared with raw TCP by paired ratios. */
const PAIRED = ['dat', 'channel', 'channel512', 'rdma', 'blocking'];
const NAMES = { raw: 'raw TCP', dat: 'DAT', channel: 'MPI channel', channel512: 'channel 512K', rdma: 'MPI rdma', blocking: 'channel block' };

/** NetPIPE's sizes: blocks growing by about a third (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, ...), each also -3 and +3 bytes. */
function netpipeSizes(limit) {
  const out = new Set();
  for (let base = 1; base <= limit; base = base < 4 ? base + 1 : base % 3 === 0 ? (base / 3) * 4 : (base / 4) * 6) {
    for (const n of [base - 3, base, base + 3]) if (n >= 1 && n <= limit) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}
const SIZES = values.quick ? netpipeSizes(max).filter((_, i) => i % 4 === 0 || _ >= 65536) : netpipeSizes(max);

/** Round trips a measurement takes: many for small messages, a few for large (NetPIPE aims at a fixed time per point). */
function repsFor(n) {
  const r = Math.max(3, Math.min(values.quick ? 50 : 200, Math.floor((values.quick ? 4 : 16) * (1 << 20) / n)));
  return r;
}

async function launch() {
  const args = ['--max', values.max, '--rounds', values.rounds, '--big-rounds', values['big-rounds'], ...(values.quick ? ['--quick'] : [])];
  const results = await runDeviceJobs(import.meta.url, 'tcp', JOBS.map((j) => ({ label: j.label, env: j.env, args: ['--job', j.key, ...args] })));
  if (values.json) process.stdout.write(`${JSON.stringify({ sizes: SIZES, rounds, bigRounds, ...results }, null, 1)}\n`);
  else print(results);
}

async function rank() {
  const { Mpi } = await import('@dapl/mpi');
  const mpi = await Mpi.init();
  const world = mpi.world;
  const me = world.rank;
  const peer = 1 - me;
  const job = JOBS.find((j) => j.key === values.job);
  const buf = new Uint8Array(max);
  const dat = job.baselines ? await DatPair.start(mpi, max, 1) : undefined;
  const raw = await RawEcho.start(world, me);
  const wtime = () => mpi.wtime();
  const mpiRound = async (n, reps) => {
    const b = buf.subarray(0, n);
    for (let i = 0; i < reps; i++) {
      if (me === 0) {
        await world.send(b, peer, 1);
        await world.recv(b, peer, 1);
      } else {
        await world.recv(b, peer, 1);
        await world.send(b, peer, 1);
      }
    }
  };
  // One-way time of a round of `reps` round trips, in microseconds.
  const timed = async (round, n, reps) => {
    await world.barrier();
    const t0 = wtime();
    await round(n, reps);
    return ((wtime() - t0) / (2 * reps)) * 1e6;
  };
  const measured = [job.key, ...(dat === undefined ? [] : ['dat'])];
  // Times (medians) per column; only the first job's raw column is printed, every job's pairs with its own.
  const rows = {};
  const ratios = {};
  for (const key of [...measured, ...(job.baselines ? ['raw'] : [])]) rows[key] = [];
  for (const key of measured) ratios[key] = [];
  for (const n of SIZES) {
    const reps = repsFor(n);
    const times = { [job.key]: [], raw: [], dat: [] };
    const pairs = { [job.key]: [], dat: [] };
    // Warm the size's path once, then alternate the configurations round by round.
    await mpiRound(n, 1);
    for (let r = 0; r < roundsFor(n); r++) {
      const mpiUs = await timed(mpiRound, n, reps);
      const rawUs = await timed((m, k) => raw.pingPong(m, k), n, reps);
      times[job.key].push(mpiUs);
      times.raw.push(rawUs);
      // Throughput relative to raw TCP in this pair: raw's time over the other's.
      pairs[job.key].push(rawUs / mpiUs);
      if (dat !== undefined) {
        const datUs = await timed((m, k) => dat.pingPong(m, k), n, reps);
        times.dat.push(datUs);
        pairs.dat.push(rawUs / datUs);
      }
    }
    for (const key of Object.keys(rows)) rows[key].push({ size: n, us: median(times[key]) });
    for (const key of measured) ratios[key].push({ size: n, ratio: median(pairs[key]) });
  }
  // Neither rank closes its sockets before the other is done with them.
  await world.barrier();
  raw.close();
  // One key per column: the jobs' results are merged key by key.
  if (me === 0) reportResult({ ...rows, ...Object.fromEntries(measured.map((key) => [`ratio:${key}`, ratios[key]])) });
  await mpi.finalize();
}

/**
 * Raw Node sockets, as a careful Node program would write the ping-pong: Nagle off, no busy polling
 * (the event loop sleeps in epoll between messages), and no copy or allocation per read. Node offers
 * `onread` (reads into a caller's buffer) only on sockets it connects, so each rank connects to the
 * other and reads on that connection, writing on the one it accepted: one connection per direction.
 * A message is a 4-byte length and its payload, read straight into one preallocated buffer where
 * they belong; a ping-pong never has two messages in flight, so every read may ask for the whole
 * rest of the buffer (as much as the kernel has) and none passes a message's end. A message is sent
 * with one write of that buffer. The port numbers go over MPI.
 */
class RawEcho {
  static async start(world, me) {
    const echo = new RawEcho(me === 1);
    const server = createServer({ noDelay: true }, (socket) => {
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      echo.out = socket;
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    echo.server = server;
    // Both ranks send first (buffered, small) and then receive: no order to deadlock on.
    const ports = await Promise.all([world.send(new Int32Array([server.address().port]), 1 - me, 9), (async () => {
      const port = new Int32Array(1);
      await world.recv(port, 1 - me, 9);
      return port[0];
    })()]);
    await new Promise((resolve, reject) => {
      echo.in = connect({ port: ports[1], host: '127.0.0.1', noDelay: true, onread: echo.#onread }, resolve);
      echo.in.on('error', reject);
    });
    // Each rank's accepted socket exists once the other's connect is done: both are, after a barrier.
    await world.barrier();
    while (echo.out === undefined) await new Promise((resolve) => setImmediate(resolve));
    return echo;
  }

  /** One message as it goes out and comes in: its length, then its payload. */
  bytes = Buffer.alloc(max + 4);
  /** The connection this rank reads from (it connected) and the one it writes to (it accepted). */
  in = undefined;
  out = undefined;
  server = undefined;
  #have = 0;
  #waiter = undefined;
  #arrived = 0;
  #consumed = 0;

  constructor(echoing) {
    this.echoing = echoing;
  }

  #onread = {
    buffer: () => this.bytes.subarray(this.#have),
    callback: (length) => {
      this.#have += length;
      if (this.#have < 4 || this.#have < 4 + this.bytes.readUInt32LE(0)) return true;
      this.#have = 0;
      if (this.echoing) this.#send(this.bytes.readUInt32LE(0));
      this.#arrived++;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.();
      return true;
    },
  };

  #send(n) {
    this.bytes.writeUInt32LE(n, 0);
    this.out.write(this.bytes.subarray(0, n + 4));
  }

  /** Rank 0 sends `reps` messages, each after the echo of the last; rank 1 returns once it echoed as many. */
  async pingPong(n, reps) {
    for (let i = 0; i < reps; i++) {
      if (!this.echoing) this.#send(n);
      while (this.#arrived === this.#consumed) await new Promise((resolve) => (this.#waiter = resolve));
      this.#consumed++;
    }
  }

  close() {
    this.in?.destroy();
    this.out?.destroy();
    this.server?.close();
  }
}

function print(results) {
  const out = (s) => process.stdout.write(`${s}\n`);
  const at = (key, n) => results[key].find((r) => r.size === n);
  const mbps = (n, us) => (n * 8) / us;
  out(`# netpipe (dapl.ts, tcp between two processes, ${rounds} alternating rounds a size, ${bigRounds} from 1 MiB, medians): NetPIPE's sizes with their ±3-byte perturbations`);
  out(`# ${'bytes'.padStart(9)} ${COLUMNS.map((k) => `${NAMES[k].padStart(12)} Mbps ${'usec'.padStart(9)}`).join(' ')}`);
  for (const n of SIZES) out(`  ${String(n).padStart(9)} ${COLUMNS.map((k) => `${mbps(n, at(k, n).us).toFixed(2).padStart(17)} ${at(k, n).us.toFixed(2).padStart(9)}`).join(' ')}`);
  const ratio = (key, n) => results[`ratio:${key}`].find((r) => r.size === n).ratio;
  const big = SIZES.filter((n) => n >= BIG);
  if (big.length > 0) {
    out(`# throughput / raw TCP from 1 MiB: the median of ${bigRounds} paired ratios a size (each round against the raw round right after it)`);
    out(`# ${'bytes'.padStart(9)} ${PAIRED.map((k) => NAMES[k].padStart(13)).join(' ')}`);
    for (const n of big) out(`  ${String(n).padStart(9)} ${PAIRED.map((k) => ratio(k, n).toFixed(3).padStart(13)).join(' ')}`);
  }
  out('# Beside the thesis (Selvarajan, Implementation of MPICH on top of MP_Lite, ch. 7), measured here:');
  if (big.length > 0) {
    const span = (key) => {
      const rs = big.map((n) => ratio(key, n));
      return { min: Math.min(...rs), max: Math.max(...rs), median: median(rs) };
    };
    const channel = span('channel');
    const verdict = channel.min >= 0.9 ? 'holds at every size' : channel.median >= 0.9 ? 'holds in the median, not at every size' : 'does not hold here';
    out(`#  Figs. 7.1-7.4 "both MPICH-MP_Lite devices perform close to raw TCP": MPI channel / raw TCP throughput from 1 MiB: ${channel.min.toFixed(2)} .. ${channel.max.toFixed(2)}, median ${channel.median.toFixed(2)} (claim: within 10 %: ${verdict})`);
    const line = (key) => {
      const r = span(key);
      return `${NAMES[key]} / raw ${r.min.toFixed(2)} .. ${r.max.toFixed(2)}, median ${r.median.toFixed(2)}`;
    };
    out(`#     from 1 MiB: ${['channel512', 'rdma', 'dat', 'blocking'].map(line).join('; ')}`);
  }
  const dip = (key, limit) => {
    const below = SIZES.filter((n) => n <= limit).at(-1);
    const above = SIZES.find((n) => n > limit);
    if (below === undefined || above === undefined) return undefined;
    return { below, above, ratio: mbps(above, at(key, above).us) / mbps(below, at(key, below).us) };
  };
  const d128 = dip('channel', 128 * 1024);
  const d128at512 = dip('channel512', 128 * 1024);
  const d512 = dip('channel512', 512 * 1024);
  if (d128 !== undefined && d128at512 !== undefined) {
    out(`#  Fig. 7.6 "the performance degrades considerably near the region where the protocol changes from Eager to Rendezvous" (128 kB default):`);
    out(`#     eager limit 128 KiB: throughput at ${d128.above} B / at ${d128.below} B = ${d128.ratio.toFixed(2)} (${d128.ratio < 1 ? 'a dip' : 'no dip'})`);
    out(`#     eager limit 512 KiB, same sizes: ${d128at512.ratio.toFixed(2)} (${d128at512.ratio < 1 ? 'still a dip' : 'the dip is gone'})${d512 === undefined ? '' : `; at its own switch, ${d512.above} B / ${d512.below} B = ${d512.ratio.toFixed(2)}`}`);
  }
}

// Classes are not hoisted: dispatch once everything above is defined.
if (hasPmiEnvironment(process.env)) await rank();
else await launch();
