#!/usr/bin/env node
// Where the time of a small message on the shm provider goes, in one run: the same 8 B ping-pong
// between two worker threads (1) on a bare SharedArrayBuffer, each side spinning on Atomics.load
// (the floor: two cache-line transfers per round trip), (2) the same with an `await` per message
// (the floor of any promise-based API), (3) DAT send/recv on MPI's IA, each completion taken by
// spinning on the EVD's dequeue, which polls the rings (bench/lib/dat-pair.mjs), (4) @dapl/mpi
// send/recv, whose blocking calls poll the same way (mpi.pollWait) (and again with each round trip
// timed on its own: their median, and the share of the time spent in round trips over 10 us), and
// (5) the DAT exchange of (3) between two IAs of one thread in one synchronous loop, with the CPU
// time it takes per message: the software's own cost, which a host whose CPUs are shared with
// other work does not blur as it blurs (1)-(4). (1), (2)
// and (5) run in this process, (3) and (4) in a `dapl run -n 2 --provider shm` job with spin on;
// rounds alternate them and figures are medians over rounds (µs, half a round trip).
//
//   node bench/shm-path.mjs [--rounds N] [--iters N] [--size BYTES]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { MemAccess, workerRank } from '@dapl/core';
import { benchOptions } from './lib/options.mjs';
import { median } from './lib/median.mjs';

/** Calls of a timed loop before it is timed: the JIT's steady state (see bench/lib/shm-figures.mjs). */
const WARM_UP_CALLS = 3;
/** A round trip slower than this (µs) counts as a stall in `roundTripSpread`. */
const SLOW_US = 10;

const HELP = `usage: node bench/shm-path.mjs [options]

The cost of one small message on the shm provider, layer by layer, in one run: a bare
SharedArrayBuffer ping-pong between two spinning worker threads, the same with an await per
message, DAT send/recv (completions taken by spinning on dequeue) and @dapl/mpi send/recv over
shm (spin on; again with each round trip timed alone: the median, and the share of the time spent
in round trips over 10 us, the stalls a mean includes), and the same DAT exchange between two IAs
of one thread in one synchronous loop, with its CPU time per message (the software's own cost).
Half round trips in µs, medians over alternating rounds.

  --rounds N     alternating rounds (default 3)
  --iters N      round trips per measurement (default 20000)
  --size BYTES   message size of the DAT and MPI ping-pongs (default 8)
  -h, --help     this text`;

if (!isMainThread && workerData?.bare !== undefined) {
  await barePingPong(workerData);
} else {
  const { integer } = benchOptions('shm-path', HELP, {
    rounds: { type: 'string', default: '3' },
    iters: { type: 'string', default: '20000' },
    size: { type: 'string', default: '8' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const rounds = integer('rounds', 1);
  const iters = integer('iters', 1);
  const size = integer('size', 1);
  if (workerRank() !== undefined) await measureDapl(size, iters);
  else await orchestrate(rounds, iters, size);
}

/** One side of the bare ping-pong: word 0 carries the round trip number, rank 0 sends first. */
async function barePingPong({ bare, rank, iters, awaiting }) {
  const words = new Int32Array(bare);
  const start = performance.now();
  for (let i = 1; i <= iters; i++) {
    if (rank === 0) {
      Atomics.store(words, 0, i);
      while (Atomics.load(words, 1) !== i);
    } else {
      while (Atomics.load(words, 0) !== i);
      Atomics.store(words, 1, i);
    }
    if (awaiting) await null;
  }
  parentPort.postMessage(((performance.now() - start) * 1000) / (2 * iters));
}

async function bare(iters, awaiting) {
  const shared = new SharedArrayBuffer(128);
  const run = (rank) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: { bare: shared, rank, iters, awaiting } });
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const [latency] = await Promise.all([run(0), run(1)]);
  return latency;
}

/** Ranks 0 and 1 of the dapl job: DAT, then MPI; rank 0 prints one JSON line. */
async function measureDapl(size, iters) {
  const { Mpi } = await import('@dapl/mpi');
  const { DatPair } = await import('./lib/dat-pair.mjs');
  const { mpiPingPong } = await import('./lib/mpi-ping-pong.mjs');
  const mpi = await Mpi.init();
  const clock = () => mpi.wtime();
  const dat = await DatPair.start(mpi, size, 1);
  const time = async (run) => {
    for (let i = 0; i < WARM_UP_CALLS; i++) await run(Math.min(iters, 10_000));
    const start = clock();
    await run(iters);
    return ((clock() - start) * 1e6) / (2 * iters);
  };
  const datLatency = await time((n) => dat.pingPong(size, n));
  const buf = new Uint8Array(size);
  const mpiLatency = await time((n) => mpiPingPong(mpi.world, buf, n));
  const spread = await roundTripSpread(mpi.world, buf, iters, mpiPingPong);
  await dat.close();
  if (mpi.world.rank === 0) process.stdout.write(`${JSON.stringify({ datLatency, mpiLatency, ...spread })}\n`);
  await mpi.finalize();
}

/**
 * The MPI ping-pong again, rank 0 timing each round trip on its own: the median half round trip,
 * and how much of the mean comes from round trips slower than `SLOW_US` (a collection, the event
 * loop's turn, a nap), which the mean of a timed loop includes and the median does not.
 */
async function roundTripSpread(world, buf, iters, mpiPingPong) {
  const times = new Float64Array(iters);
  for (let i = 0; i < iters; i++) {
    const start = performance.now();
    await mpiPingPong(world, buf, 1);
    times[i] = (performance.now() - start) * 1000;
  }
  let total = 0;
  let slow = 0;
  for (const t of times) {
    total += t;
    if (t > SLOW_US) slow += t;
  }
  times.sort();
  return { mpiMedian: times[iters >> 1] / 2, mpiSlowShare: slow / total };
}

/** Both ends of the DAT ping-pong in this thread (two shm IAs, spin on), one synchronous loop: wall and CPU µs per message. */
async function oneThread(size, iters) {
  const { shmProvider } = await import('@dapl/provider-shm');
  const jobKey = randomBytes(32);
  const open = () => shmProvider.openIa({ jobKey, parameters: { spin: 'on' } });
  const ias = [await open(), await open()];
  const sides = ias.map((ia) => {
    const pz = ia.createPz();
    const evds = { recv: ia.createEvd(), request: ia.createEvd(), connect: ia.createEvd() };
    const ep = ia.createEp(pz, evds);
    const lmr = pz.registerLmr(new Uint8Array(Math.max(size, 8)), MemAccess.LOCAL);
    const iov = [{ lmr, offset: 0, length: size }];
    for (let i = 0; i < 4; i++) ep.postRecv(iov, i);
    return { ep, evds, iov };
  });
  const listen = ias[1].createEvd();
  const psp = await ias[1].createPspAny(listen);
  sides[0].ep.connect(ias[1].address, psp.connQual, { timeoutMs: 10_000 });
  (await listen.wait({ timeoutMs: 10_000 })).request.accept(sides[1].ep);
  await Promise.all(sides.map((s) => s.evds.connect.wait({ timeoutMs: 10_000 })));
  const quiet = { suppressCompletion: true };
  const [a, b] = sides;
  // Each side's completion by dequeue, which polls the rings: the frame the other side just wrote.
  const take = (side) => {
    for (let spins = 0; spins < 1_000_000; spins++) if (side.evds.recv.dequeue() !== undefined) return;
    throw new Error('shm-path: a message written in this thread was not there to dequeue');
  };
  const both = (n) => {
    for (let i = 0; i < n; i++) {
      a.ep.postSend(a.iov, i, quiet);
      take(b);
      b.ep.postRecv(b.iov, i);
      b.ep.postSend(b.iov, i, quiet);
      take(a);
      a.ep.postRecv(a.iov, i);
    }
  };
  both(Math.min(iters, 5000));
  const start = performance.now();
  const cpu = process.cpuUsage();
  both(iters);
  const wall = ((performance.now() - start) * 1000) / (2 * iters);
  const used = process.cpuUsage(cpu);
  for (const ia of ias) await ia.close();
  return { wall, cpu: (used.user + used.system) / (2 * iters) };
}

async function orchestrate(rounds, iters, size) {
  const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
  const script = fileURLToPath(import.meta.url);
  process.stdout.write(`# shm-path: ${rounds} rounds, ${iters} round trips each, ${size} B; half round trip in us\n`);
  process.stdout.write(`# MPI p50: the median of the MPI round trips timed one by one, halved; stalls: the share of their total time in round trips over ${SLOW_US} us\n`);
  process.stdout.write('# round   bare SAB  SAB+await      DAT      MPI  MPI p50  stalls  DAT 1 thread (CPU)\n');
  const rows = [];
  for (let r = 0; r < rounds; r++) {
    const spin = await bare(iters, false);
    const awaited = await bare(iters, true);
    const local = await oneThread(size, iters);
    const out = execFileSync(process.execPath, [dapl, 'run', '-n', '2', '--provider', 'shm', script, '--iters', String(iters), '--size', String(size)], {
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, DAPL_SHM_SPIN: 'on' },
    });
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line === undefined) throw new Error(`shm-path: the shm job printed no figures:\n${out}`);
    const { datLatency, mpiLatency, mpiMedian, mpiSlowShare } = JSON.parse(line);
    rows.push({ spin, awaited, datLatency, mpiLatency, mpiMedian, mpiSlowShare, local });
    const f = (v) => v.toFixed(3).padStart(9);
    const pct = `${(100 * mpiSlowShare).toFixed(0)} %`.padStart(8);
    process.stdout.write(`${String(r + 1).padEnd(7)}${f(spin)}  ${f(awaited)}${f(datLatency)}${f(mpiLatency)}${f(mpiMedian)}${pct}${f(local.wall)} (${local.cpu.toFixed(3)})\n`);
  }
  const med = (pick) => median(rows.map(pick)).toFixed(3);
  process.stdout.write(`# medians: bare ${med((r) => r.spin)} us, with await ${med((r) => r.awaited)} us, DAT ${med((r) => r.datLatency)} us, MPI ${med((r) => r.mpiLatency)} us (p50 ${med((r) => r.mpiMedian)} us, ${(100 * median(rows.map((r) => r.mpiSlowShare))).toFixed(0)} % of the time in stalls); DAT in one thread ${med((r) => r.local.wall)} us, ${med((r) => r.local.cpu)} us of CPU\n`);
}
