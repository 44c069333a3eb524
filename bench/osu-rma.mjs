#!/usr/bin/env node
// OSU one-sided micro-benchmarks on @dapl/mpi, on any provider: osu_put_latency, osu_get_latency,
// osu_acc_latency, osu_fop_latency, osu_cas_latency, osu_put_bw, osu_get_bw and osu_put_bibw
// between ranks 0 and 1 with the window synchronised by --sync (lock, flush, fence or pscw, as
// OSU's -s). Each size beside the same transfer done directly with DAT on the same IA in the same
// job: RDMA write for put and accumulate, RDMA read for get, fetch-and-op and compare-and-swap
// (the providers have no remote atomics). MPI and DAT rounds alternate; figures are medians over
// rounds; ratio = MPI / DAT, the median over round pairs of each pair's ratio. On a simulated
// provider the times are virtual and, on ib, Put, Get and Accumulate at 8 B (PSCW, the active
// target synchronisation of the paper's figure 7) are printed beside Chai, Noronha, Gupta, Brown,
// Panda: "Designing a portable MPI-2 over modern interconnects using uDAPL" (8.9, 20.5, 8.9 µs).
//
//   node bench/osu-rma.mjs [--provider tcp|ib|lapi|combuf] [--only put_latency,...] [--sync flush]
//
// It launches itself with `dapl run -n 2` (processes for tcp, the simulator for the others).
import { Mpi, Op, Win } from '@dapl/mpi';
import { DatPair } from './lib/dat-pair.mjs';
import { runAsJob } from './lib/job.mjs';
import { median } from './lib/median.mjs';
import { benchOptions } from './lib/options.mjs';

const TESTS = ['put_latency', 'get_latency', 'acc_latency', 'fop_latency', 'cas_latency', 'put_bw', 'get_bw', 'put_bibw'];
const SYNCS = ['lock', 'flush', 'fence', 'pscw'];
/** The paper's figure 7 (InfiniBand, MVAPICH2 over uDAPL), µs at small messages. */
const PAPER = { put: 8.9, get: 20.5, acc: 8.9 };

const HELP = `usage: node bench/osu-rma.mjs [options]

OSU's one-sided tests on @dapl/mpi between ranks 0 and 1 (rank 0 the origin, rank 1 the target's
window from Win.allocate), each size beside DAT RDMA write (put, accumulate) or read (get, fop, cas)
on the same IA in the same job, in OSU's output format with the MPI/DAT ratio per size.

  --provider KEY     tcp (default; processes), ib, lapi, combuf (virtual time)
  --only LIST        comma-separated: ${TESTS.join(',')} (default all)
  --sync MODE        lock (lock, op, unlock per iteration), flush (one lock, op + flush per
                     iteration; default), fence, pscw
  --min-size BYTES   smallest message (default 1)
  --max-size BYTES   largest message (default 4194304; latency tests stop at 65536 unless given)
  --rounds N         alternating MPI / DAT rounds per size (default 5; 1 on a simulated provider)
  --warmup S         untimed MPI / DAT round pairs for at least S seconds at each test's first size
                     (default 2 on tcp, 0 in virtual time and with --quick)
  --window N         operations in flight for the bandwidth tests (default 64)
  --quick            fewer iterations
  -h, --help         this text`;

const options = {
  provider: { type: 'string', default: 'tcp' },
  only: { type: 'string', default: TESTS.join(',') },
  sync: { type: 'string', default: 'flush' },
  'min-size': { type: 'string', default: '1' },
  'max-size': { type: 'string' },
  rounds: { type: 'string' },
  warmup: { type: 'string' },
  window: { type: 'string', default: '64' },
  quick: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values, check, integer } = benchOptions('osu-rma', HELP, options);
for (const [name, min] of [['min-size', 1], ['max-size', 1], ['window', 1], ['rounds', 1]]) integer(name, min);
check('warmup', (v) => v !== '' && Number(v) >= 0 && Number(v) <= 600, 'be a number of seconds from 0 to 600');
check('sync', (v) => SYNCS.includes(v), `be one of ${SYNCS.join(', ')}`);
check('only', (v) => v.split(',').every((t) => TESTS.includes(t)), `list tests among ${TESTS.join(', ')}`);

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const peer = 1 - rank;
  const simulated = mpi.job.ia.provider.capabilities.inProcess;
  const rounds = Number(values.rounds ?? (simulated ? 1 : 5));
  const quick = values.quick || simulated;
  const warmupSeconds = values.warmup !== undefined ? Number(values.warmup) : quick ? 0 : 2;
  const window = Number(values.window);
  const sync = values.sync;
  const only = values.only.split(',');
  const maxSize = Number(values['max-size'] ?? 4 << 20);
  const latencyMax = values['max-size'] === undefined ? 65536 : maxSize;
  const sizes = (max) => {
    const out = [];
    for (let n = Number(values['min-size']); n <= max; n *= 2) out.push(n);
    return out;
  };
  if (world.size !== 2) throw new Error('osu-rma runs on 2 ranks');
  const win = await Win.allocate(world, Math.max(maxSize, 64) * 2);
  const dat = await DatPair.start(mpi, Math.max(maxSize, 64), 1);
  const groupOf = (r) => world.group.incl([r]);
  const origin = new Uint8Array(Math.max(maxSize, 64));
  const result = new Uint8Array(Math.max(maxSize, 64));
  const iterations = (n) => (quick ? (n <= 65536 ? 20 : 4) : n <= 8192 ? 500 : n <= 262144 ? 50 : 10);

  /** One epoch around `body` (rank 0's operations; rank 1 exposes) per --sync; `each` is called per iteration. */
  const epoch = {
    async open() {
      if (sync === 'flush' && rank === 0) await win.lock(1, 'shared');
      if (sync === 'fence') await win.fence();
    },
    async iteration(ops, target) {
      if (sync === 'lock') {
        if (rank === 0) {
          await win.lock(target, 'shared');
          ops();
          await win.unlock(target);
        }
      } else if (sync === 'flush') {
        if (rank === 0) {
          ops();
          await win.flush(target);
        }
      } else if (sync === 'fence') {
        if (rank === 0) ops();
        await win.fence();
      } else if (rank === 0) {
        await win.start(groupOf(target));
        ops();
        await win.complete();
      } else {
        await win.post(groupOf(0));
        await win.wait();
      }
    },
    async close() {
      if (sync === 'flush' && rank === 0) await win.unlock(1);
      await world.barrier();
    },
  };

  /** An MPI round: `iters` iterations of `ops` under --sync; seconds per iteration at rank 0. */
  const mpiRound = async (ops, iters) => {
    await epoch.open();
    await world.barrier();
    const start = mpi.wtime();
    for (let i = 0; i < iters; i++) await epoch.iteration(ops, 1);
    const seconds = mpi.wtime() - start;
    await epoch.close();
    return seconds / iters;
  };
  /** A DAT round: `iters` bursts of `count` writes (reads) at rank 0; seconds per burst. */
  const datRound = async (read, n, count, iters) => {
    await world.barrier();
    const start = mpi.wtime();
    if (rank === 0) for (let i = 0; i < iters; i++) await dat.burst(read, n, count);
    const seconds = mpi.wtime() - start;
    await world.barrier();
    return seconds / iters;
  };
  /** MPI and DAT rounds alternating; medians and the median of the pairs' ratios (rank 0's). */
  const alternate = async (mpiBody, datBody, warm) => {
    const until = mpi.wtime() + warm;
    const more = new Uint8Array(1);
    do {
      await mpiBody();
      await datBody();
      more[0] = rank === 0 && mpi.wtime() < until ? 1 : 0;
      await world.bcast(more, 0);
    } while (more[0] === 1);
    const pairs = [];
    for (let r = 0; r < rounds; r++) pairs.push([await mpiBody(), await datBody()]);
    return { mpi: median(pairs.map((p) => p[0])), dat: median(pairs.map((p) => p[1])), pairs };
  };
  const say = (text) => rank === 0 && process.stdout.write(`${text}\n`);
  const header = (title, unit, baseline) => {
    say(`# OSU MPI_${title} (dapl.ts @dapl/mpi, provider ${mpi.provider}${simulated ? ', virtual time' : ''}, sync ${sync})`);
    say(`# DAT: ${baseline} on the same IA; medians of ${rounds} round(s); ratio = MPI / DAT, the median of the round pairs' ratios`);
    say(`# Size${' '.repeat(6)}${unit.padStart(16)}${`DAT ${unit.split(' ')[1]}`.padStart(16)}${'ratio'.padStart(9)}`);
  };
  const row = (n, m, d, ratio) => say(`${String(n).padEnd(10)}${m.toFixed(2).padStart(16)}${d.toFixed(2).padStart(16)}${ratio.toFixed(2).padStart(9)}`);
  const latencies = {};

  const OPS = {
    put: { title: 'Put Latency', read: false, sizes: latencyMax, ops: (n) => () => win.put(origin.subarray(0, n), 1, 0) },
    get: { title: 'Get Latency', read: true, sizes: latencyMax, ops: (n) => () => win.get(result.subarray(0, n), 1, 0) },
    acc: { title: 'Accumulate Latency', read: false, sizes: latencyMax, ops: (n) => () => win.accumulate(new Int32Array(origin.buffer, 0, n >> 2), 1, 0, Op.SUM), min: 4 },
    fop: { title: 'Fetch_and_op Latency', read: true, fixed: 8, ops: () => () => win.fetchAndOp(new BigInt64Array(origin.buffer, 0, 1), new BigInt64Array(result.buffer, 0, 1), 1, 0, Op.SUM) },
    cas: { title: 'Compare_and_swap Latency', read: true, fixed: 8, ops: () => () => win.compareAndSwap(new BigInt64Array(origin.buffer, 0, 1), new BigInt64Array(origin.buffer, 8, 1), new BigInt64Array(result.buffer, 0, 1), 1, 0) },
  };

  for (const test of only) {
    const [what, kind] = test.split('_');
    if (kind === 'latency') {
      const spec = OPS[what];
      header(spec.title, 'Latency (us)', spec.read ? 'RDMA read' : 'RDMA write');
      const list = spec.fixed !== undefined ? [spec.fixed] : sizes(spec.sizes).filter((n) => n >= (spec.min ?? 1));
      for (const [position, n] of list.entries()) {
        const iters = iterations(n);
        const ops = spec.ops(n);
        const got = await alternate(() => mpiRound(ops, iters), () => datRound(spec.read, n, 1, iters), position === 0 ? warmupSeconds : 0);
        row(n, got.mpi * 1e6, got.dat * 1e6, median(got.pairs.map(([m, d]) => m / d)));
        (latencies[what] ??= {})[n] = got.mpi * 1e6;
      }
      continue;
    }
    const read = what === 'get';
    const both = kind === 'bibw';
    header(both ? 'Put Bi-directional Bandwidth' : `${read ? 'Get' : 'Put'} Bandwidth`, 'Bandwidth (MB/s)', `${window} RDMA ${read ? 'reads' : 'writes'} then their completions${both ? ', both ranks at once' : ''}`);
    for (const [position, n] of sizes(maxSize).entries()) {
      const iters = Math.max(2, Math.ceil(iterations(n) / 10));
      const burst = () => {
        for (let w = 0; w < window; w++) {
          if (read) win.get(result.subarray(0, n), 1, 0);
          else win.put(origin.subarray(0, n), peer, n * rank);
        }
      };
      const mpiBody = async () => {
        if (!both) return mpiRound(burst, iters);
        // Both ranks put to each other, each in a lock epoch on the other with flushes.
        await win.lock(peer, 'shared');
        await world.barrier();
        const start = mpi.wtime();
        for (let i = 0; i < iters; i++) {
          burst();
          await win.flush(peer);
        }
        const seconds = mpi.wtime() - start;
        await win.unlock(peer);
        await world.barrier();
        return seconds / iters;
      };
      const datBody = async () => {
        if (!both) return datRound(read, n, window, iters);
        await world.barrier();
        const start = mpi.wtime();
        for (let i = 0; i < iters; i++) await dat.burst(false, n, window);
        const seconds = mpi.wtime() - start;
        await world.barrier();
        return seconds / iters;
      };
      const got = await alternate(mpiBody, datBody, position === 0 ? warmupSeconds : 0);
      const bytes = n * window * (both ? 2 : 1);
      row(n, bytes / got.mpi / 1e6, bytes / got.dat / 1e6, median(got.pairs.map(([m, d]) => d / m)));
    }
  }

  if (simulated && mpi.provider === 'ib' && sync === 'pscw') {
    say('# Chai, Noronha, Gupta, Brown, Panda (uDAPL paper), fig. 7, InfiniBand: small-message latency, active target');
    say(`# Op${' '.repeat(12)}paper (us)  here, 8 B (us)`);
    for (const what of ['put', 'get', 'acc']) {
      const here = latencies[what]?.[8];
      say(`${what.padEnd(14)}${PAPER[what].toFixed(1).padStart(12)}${(here === undefined ? '-' : here.toFixed(1)).padStart(16)}`);
    }
  }
  await win.free();
  await dat?.close();
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
