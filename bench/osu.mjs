#!/usr/bin/env node
// OSU micro-benchmarks on @dapl/mpi, on any provider. Point to point (osu_latency, osu_bw,
// osu_bibw; ranks 0 and 1): each size beside the same exchange done directly with DAT on the same IA
// in the same job (send/recv with pre-posted receives; sends with suppressed completions, as MPI
// libraries over uDAPL post them); the MPI and DAT rounds alternate; figures are medians over rounds;
// ratio = MPI / DAT, the median over round pairs of each pair's ratio. osu_bw and osu_bibw count
// windows as OSU does (100 timed after 10 skipped up to 8 KiB; 20 after 2 above), the skipped ones
// first in the same loop; each size's timed rounds follow an untimed pair, and a test's first
// size, and the first size of each MPI protocol range (above the eager limit; above the bounce limit
// in osu_latency), follows --warmup seconds of them: a cold stream on this host takes 2-4 s to
// reach its steady rate (MPI's 64 KiB window, alternating with DAT's, ~4 s), and a protocol's
// code runs unoptimized for its first ~1,000-2,000 messages (V8 tiers a function up by the
// bytecode it has run).
// Collectives (osu_barrier, osu_bcast, osu_allreduce; all ranks): the average latency over
// iterations, the maximum over ranks, median over rounds. On a simulated provider the times are
// virtual (deterministic). Nonblocking collectives (osu_iallreduce, osu_ibcast, osu_ialltoall):
// OSU's overall / compute / pure communication / overlap figures (bench/lib/osu-nonblocking.mjs).
//
//   node bench/osu.mjs [--provider tcp|shm|ib|lapi|combuf] [-n N] [--only latency,bw,bibw,barrier,bcast,allreduce,iallreduce,ibcast,ialltoall] [--warmup S]
//
// It launches itself with `dapl run -n N` (processes for tcp, worker threads for shm, the simulator
// for the others).
import { Mpi, Op, Request } from '@dapl/mpi';
import { DatPair } from './lib/dat-pair.mjs';
import { mpiPingPong } from './lib/mpi-ping-pong.mjs';
import { skipping } from './lib/skipping.mjs';
import { runAsJob } from './lib/job.mjs';
import { median } from './lib/median.mjs';
import { benchOptions } from './lib/options.mjs';
import { benchRecord } from './lib/record.mjs';
import { NONBLOCKING_TESTS, nonblockingCollectives } from './lib/osu-nonblocking.mjs';

const HELP = `usage: node bench/osu.mjs [options]

osu_latency, osu_bw (window 64) and osu_bibw on @dapl/mpi between ranks 0 and 1, beside DAT
send/recv on the same IA in the same job, OSU output format with the MPI/DAT ratio per size (the
median of the ratios of the round pairs, each MPI round beside the DAT round after it); and
osu_barrier, osu_bcast, osu_allreduce over all ranks; osu_iallreduce, osu_ibcast, osu_ialltoall
(overall, compute, pure communication time and overlap, the compute in yielding steps: charged to
the rank's clock on a simulated provider, busy wall-clock time on tcp).

  --provider KEY     tcp (default; processes), shm (worker threads), ib, lapi, combuf (virtual time)
  -n N, -np N        ranks (default 2; 2 to 16 for the collectives)
  --only LIST        comma-separated: latency,bw,bibw,barrier,bcast,allreduce,iallreduce,ibcast,
                     ialltoall (default latency,bw,bibw)
  --steps N          pieces the nonblocking tests' compute is done in, yielding to the event loop
                     after each (default 10; 1: compute without yielding)
  --min-size BYTES   smallest message (default 1)
  --max-size BYTES   largest message (default 4194304)
  --rounds N         alternating MPI / DAT rounds per size (default 5; 1 on a simulated provider)
  --warmup S         at the first size of each test and the first size of each MPI protocol range
                     (above the eager limit; above the bounce limit in osu_latency), untimed MPI /
                     DAT round pairs for at least S seconds before the timed ones (default 5 on
                     tcp; 0 in virtual time and with --quick): on this host a stream reaches its
                     steady rate only after 2-4 s of these pairs (MPI's 64 KiB window ~4 s,
                     DAT's ~1 s), and a protocol's code runs
                     unoptimized for its first ~1,000-2,000 messages, so a size timed cold would time
                     the start-up. Every size also gets one untimed pair, as OSU's skip iterations.
  --window N         messages in flight for bw and bibw (default 64)
  --quick            fewer iterations
  --json FILE        also write the figures as a record (bench/lib/record.mjs; bench/results/ keeps
                     the current one per provider)
  -h, --help         this text`;

const options = {
  provider: { type: 'string', default: 'tcp' },
  only: { type: 'string', default: 'latency,bw,bibw' },
  ranks: { type: 'string', short: 'n', default: '2' },
  'min-size': { type: 'string', default: '1' },
  'max-size': { type: 'string', default: String(4 << 20) },
  rounds: { type: 'string' },
  warmup: { type: 'string' },
  window: { type: 'string', default: '64' },
  steps: { type: 'string', default: '10' },
  quick: { type: 'boolean', default: false },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values, check, integer } = benchOptions('osu', HELP, options);
for (const [name, min] of [['min-size', 0], ['max-size', 0], ['window', 1], ['ranks', 1], ['rounds', 1], ['steps', 1]]) integer(name, min);
// Every test needs two ranks (point to point runs between ranks 0 and 1): one rank would print nothing.
check('ranks', (v) => Number(v) >= 2, 'be at least 2 (-n N; -np N also works): point to point runs between ranks 0 and 1, the collectives over 2 to 16 ranks');
check('warmup', (v) => v !== '' && Number(v) >= 0 && Number(v) <= 600, 'be a number of seconds from 0 to 600');

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  const rank = world.rank;
  const simulated = mpi.job.ia.provider.capabilities.inProcess;
  const rounds = Number(values.rounds ?? (simulated ? 1 : 5));
  const window = Number(values.window);
  const minSize = Number(values['min-size']);
  const maxSize = Number(values['max-size']);
  const quick = values.quick || simulated;
  const warmupSeconds = values.warmup !== undefined ? Number(values.warmup) : quick ? 0 : 5;
  const only = new Set(values.only.split(','));
  const record = benchRecord('osu', { timeBase: simulated ? 'virtual' : 'wall' });
  const sizes = [];
  for (let n = minSize; n <= maxSize; n = n === 0 ? 1 : n * 2) sizes.push(n);
  const { eagerLimit, bounceLimit } = mpi.parameters;
  /**
   * Seconds of untimed pairs before size `sizes[position]`: the warm-up at a test's first size and
   * where the MPI protocol changes (past `limits`), since V8 tiers each protocol's code up only
   * after it has run a while.
   */
  const warmupAt = (position, limits) => {
    const n = sizes[position];
    const previous = sizes[position - 1];
    const crosses = position === 0 || limits.some((limit) => previous <= limit && n > limit);
    return crosses ? warmupSeconds : 0;
  };
  // osu_latency's blocking sends are copied up to the bounce limit; the windows' isends never are.
  const latencyLimits = bounceLimit > eagerLimit ? [eagerLimit, bounceLimit] : [eagerLimit];
  const windowLimits = [eagerLimit];
  /**
   * MPI and DAT rounds alternating (both ranks start each MPI round together): the median time of
   * each, and the rounds as pairs [MPI, DAT] in the order they ran. Untimed pairs go first, as
   * OSU's skip iterations — at least one, and more until rank 0 has seen `warmFor` seconds of them (it tells rank 1 after each pair): JIT, registrations and the
   * first use of each buffer are not measured, nor (at a test's first size) the seconds a stream
   * takes on this host to reach its steady rate.
   */
  const alternate = async (mpiBody, datBody, warmFor) => {
    const mpiRuns = [];
    const datRuns = [];
    const warm = mpi.wtime() + warmFor;
    const more = new Uint8Array(1);
    do {
      await timed(() => mpi.wtime(), mpiBody, together(world, rank));
      await timed(() => mpi.wtime(), datBody);
      if (rank === 0) {
        more[0] = mpi.wtime() < warm ? 1 : 0;
        await world.send(more, 1, 11);
      } else {
        await world.recv(more, 0, 11);
      }
    } while (more[0] === 1);
    for (let r = 0; r < rounds; r++) {
      mpiRuns.push(await timed(() => mpi.wtime(), mpiBody, together(world, rank)));
      datRuns.push(await timed(() => mpi.wtime(), datBody));
    }
    return [median(mpiRuns), median(datRuns), mpiRuns.map((m, r) => [m, datRuns[r]])];
  };
  const iterations = (n) => (quick ? (n <= 65536 ? 50 : 5) : n <= 8192 ? 1000 : n <= 262144 ? 100 : 20);
  /**
   * Windows per bw/bibw round as OSU counts them (loop 100 and skip 10 up to 8 KiB, loop 20 and
   * skip 2 above): the skipped windows run first in the same loop, untimed, so a round is timed
   * in its steady state, without the start-up of the first window after the ranks synchronised.
   */
  const windows = (n) => (quick ? { iters: n <= 65536 ? 5 : 2, skip: 1 } : n <= 8192 ? { iters: 100, skip: 10 } : { iters: 20, skip: 2 });
  const pointToPoint = ['latency', 'bw', 'bibw'].some((t) => only.has(t));
  // Point to point runs between ranks 0 and 1; the others wait at the barrier below.
  const paired = world.rank < 2 && world.size >= 2;
  // Every rank starts the DAT pair's connections (a collective); ranks 0 and 1 get the pair.
  const dat = pointToPoint && world.size >= 2 ? await DatPair.start(mpi, maxSize, window) : undefined;
  if (pointToPoint && paired) await runPointToPoint();
  await collectives();
  const nonblocking = NONBLOCKING_TESTS.filter((k) => only.has(k));
  if (nonblocking.length > 0) {
    const collSizes = sizes.filter((x) => x <= Math.min(maxSize, 1 << 20));
    await nonblockingCollectives(mpi, { kinds: nonblocking, sizes: collSizes, iterations, rounds, steps: Number(values.steps), simulated });
  }
  async function runPointToPoint() {
  const peer = 1 - rank;
  let test = '';
  let testUnit = '';
  const header = (title, unit) => {
    test = { Latency: 'latency', Bandwidth: 'bw', 'Bi-Directional Bandwidth': 'bibw' }[title] ?? title.toLowerCase();
    testUnit = unit.includes('MB/s') ? 'MB/s' : 'us';
    if (rank !== 0) return;
    process.stdout.write(`# OSU MPI ${title} Test (dapl.ts @dapl/mpi, device ${mpi.parameters.device}, provider ${mpi.provider}${simulated ? ', virtual time' : ''})\n`);
    process.stdout.write(`# DAT: the same exchange with DAT send/recv on the same IA; medians of ${rounds} round(s) after one untimed (${warmupSeconds} s of them at the first size and at each protocol's first); ratio = MPI / DAT, the median of the ratios of the round pairs (each MPI round and the DAT round after it)\n`);
    process.stdout.write(`# Size${' '.repeat(6)}${unit.padStart(16)}${`DAT ${unit.split(' ')[1] ?? ''}`.padStart(16)}${'ratio'.padStart(9)}\n`);
  };
  /**
   * A size's line. Its ratio is the median over round pairs of each pair's ratio (`of(mpi, dat)`
   * from the two times), not the ratio of the two medians: a pair ran back to back and saw the same
   * host, whose rate can change by 3x within a size's rounds, and the two medians may then come
   * from different halves of them.
   */
  const row = (n, mpiValue, datValue, pairs, of) => {
    if (rank !== 0) return;
    const value = median(pairs.map(([m, d]) => of(m, d)));
    const ratio = Number.isFinite(value) ? value.toFixed(2) : '-';
    for (const [series, v] of [['MPI', mpiValue], ['DAT', datValue]]) record.add({ test, provider: mpi.provider, size: n, series, value: v, unit: testUnit });
    if (Number.isFinite(value)) record.add({ test, provider: mpi.provider, size: n, series: 'MPI/DAT', value, unit: 'ratio' });
    process.stdout.write(`${String(n).padEnd(10)}${mpiValue.toFixed(2).padStart(16)}${datValue.toFixed(2).padStart(16)}${ratio.padStart(9)}\n`);
  };

  if (only.has('latency')) {
    header('Latency', 'Latency (us)');
    for (const [position, n] of sizes.entries()) {
      const buf = new Uint8Array(n);
      const iters = iterations(n);
      const [mpiTime, datTime, pairs] = await alternate(
        () => mpiPingPong(world, buf, iters),
        () => dat.pingPong(n, iters),
        warmupAt(position, latencyLimits),
      );
      row(n, (mpiTime * 1e6) / (2 * iters), (datTime * 1e6) / (2 * iters), pairs, (m, d) => m / d);
    }
  }

  if (only.has('bw')) {
    header('Bandwidth', 'Bandwidth (MB/s)');
    for (const [position, n] of sizes.entries()) {
      const buf = new Uint8Array(n);
      const ack = new Uint8Array(4);
      const { iters, skip } = windows(n);
      const [mpiTime, datTime, pairs] = await alternate(
        () =>
          skipping(() => mpi.wtime(), skip, iters, async () => {
            const reqs = [];
            if (rank === 0) {
              for (let w = 0; w < window; w++) reqs.push(world.isend(buf, peer, 2));
              await Request.waitAll(reqs);
              await world.recv(ack, peer, 3);
            } else {
              for (let w = 0; w < window; w++) reqs.push(world.irecv(buf, peer, 2));
              await Request.waitAll(reqs);
              await world.send(ack, peer, 3);
            }
          }),
        () => dat.stream(n, iters, window, skip),
        warmupAt(position, windowLimits),
      );
      const bytes = n * window * iters;
      row(n, bytes / mpiTime / 1e6, bytes / datTime / 1e6, pairs, (m, d) => d / m);
    }
  }

  if (only.has('bibw')) {
    header('Bi-Directional Bandwidth', 'Bandwidth (MB/s)');
    for (const [position, n] of sizes.entries()) {
      const out = new Uint8Array(n);
      const into = new Uint8Array(n);
      const { iters, skip } = windows(n);
      const [mpiTime, datTime, pairs] = await alternate(
        () =>
          skipping(() => mpi.wtime(), skip, iters, async () => {
            const reqs = [];
            for (let w = 0; w < window; w++) reqs.push(world.irecv(into, peer, 4));
            for (let w = 0; w < window; w++) reqs.push(world.isend(out, peer, 4));
            await Request.waitAll(reqs);
          }),
        () => dat.bistream(n, iters, window, skip),
        warmupAt(position, windowLimits),
      );
      const bytes = 2 * n * window * iters;
      row(n, bytes / mpiTime / 1e6, bytes / datTime / 1e6, pairs, (m, d) => d / m);
    }
  }

  await together(world, rank); // the peer is done with the DAT pair too
  await dat.close();
  }

  async function collectives() {
    const kinds = ['barrier', 'bcast', 'allreduce'].filter((k) => only.has(k));
    for (const kind of kinds) {
      await world.barrier();
      if (rank === 0) {
        process.stdout.write(`# OSU MPI ${kind === 'barrier' ? 'Barrier' : kind === 'bcast' ? 'Broadcast' : 'Allreduce'} Latency Test (dapl.ts @dapl/mpi, provider ${mpi.provider}${simulated ? ', virtual time' : ''}, ${world.size} ranks)\n`);
        process.stdout.write(kind === 'barrier' ? '# Avg Latency(us)\n' : `# Size${' '.repeat(6)}${'Avg Latency(us)'.padStart(16)}\n`);
      }
      for (const n of kind === 'barrier' ? [0] : sizes.filter((x) => x <= Math.min(maxSize, 1 << 20) && (kind === 'bcast' || x >= 4))) {
        const iters = Math.max(2, Math.floor(iterations(n) / (kind === 'barrier' ? 1 : 4)));
        const send = new Float32Array(Math.max(1, n / 4));
        const recv = new Float32Array(send.length);
        const bytes = new Uint8Array(n);
        const runs = [];
        const once = () => (kind === 'barrier' ? world.barrier() : kind === 'bcast' ? world.bcast(bytes, 0) : world.allreduce(send, recv, Op.SUM));
        await once(); // warm-up: connections, registrations
        for (let r = 0; r < rounds; r++) {
          await world.barrier();
          const start = mpi.wtime();
          for (let i = 0; i < iters; i++) await once();
          const mine = new Float64Array([((mpi.wtime() - start) * 1e6) / iters]);
          const slowest = new Float64Array(1);
          await world.allreduce(mine, slowest, Op.MAX);
          runs.push(slowest[0]);
        }
        if (rank === 0) record.add({ test: `${kind} (${world.size} ranks)`, provider: mpi.provider, size: kind === 'barrier' ? null : n, series: 'MPI', value: median(runs), unit: 'us' });
        if (rank === 0) process.stdout.write(kind === 'barrier' ? `${median(runs).toFixed(2).padStart(16)}\n` : `${String(n).padEnd(10)}${median(runs).toFixed(2).padStart(16)}\n`);
      }
    }
  }
  if (rank === 0 && values.json !== undefined) record.write(values.json);
  await mpi.finalize();
}

/** Both ranks start the timed part together: a zero-byte exchange first. */
async function together(world, rank) {
  const none = new Uint8Array(0);
  await world.sendrecv(none, 1 - rank, 9, none, 1 - rank, 9);
}

/** Seconds `body` took, or what it reports itself (a body that skips its first iterations). */
async function timed(clock, body, before) {
  if (before !== undefined) await before;
  const start = clock();
  const own = await body();
  return typeof own === 'number' ? own : clock() - start;
}

await runAsJob(import.meta.url, values.ranks, values.provider, benchmark);
