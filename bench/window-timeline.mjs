#!/usr/bin/env node
// Where osu_bw's window goes: the window (rank 0 sends a window of messages, rank 1 receives them
// and acknowledges) cut into the stages of its critical path, timed on a clock both ranks share, on
// @dapl/mpi and on DAT send/recv in alternating blocks of one job. Each stage ends where the next
// begins, so the stages add up to the window, and MPI's excess over DAT shows up in the stage that
// holds it. On tcp the ranks are processes on one host, whose wall clocks agree to a microsecond or
// two. In virtual time the clock is the simulator's. (Where the receiver's time between the first
// and the last message goes cannot be told apart fairly: MPI takes completions inside the
// provider's input callback, a DAT program one await at a time, so the window's messages count as
// one stage.)
//
//   node bench/window-timeline.mjs [--provider tcp] [--size 8] [--window 64] [--blocks 20] [--windows 50] [--warmup 5]
//
// It launches itself with `dapl run -n 2`.
import { Mpi, Request } from '@dapl/mpi';
import { DatPair } from './lib/dat-pair.mjs';
import { runAsJob } from './lib/job.mjs';
import { median } from './lib/median.mjs';
import { benchOptions } from './lib/options.mjs';

const HELP = `usage: node bench/window-timeline.mjs [options]

osu_bw's window (rank 0 sends a window of messages, rank 1 receives them, then acknowledges with 4
bytes) on @dapl/mpi and on DAT send/recv on the same IA, in alternating blocks of one job, cut into
the stages of its critical path on a clock both ranks share. Prints, per stage, the median over
blocks of each block's median in microseconds, for MPI, for DAT, and MPI's excess:

  1 the sender posts the window (isends / DAT posts)
  2 the sender's last post -> the receiver has seen every message (its waitAll returns / its last
    completion is taken); on tcp most of it is the sender's write and the receiver's read
  3 the receiver's acknowledgement: the call to send it (MPI_Send returns / DAT post)
  4 that call returned -> the sender sees the acknowledgement
  5 the sender sees it -> its next window's first post

and, off the path, the receiver posting the next window's receives (MPI; DAT's are pre-posted).

  --provider KEY   tcp (default), ib, lapi, combuf (virtual time)
  --size N         message size in bytes (default 8)
  --window N       messages per window (default 64)
  --blocks N       MPI / DAT block pairs measured (default 20)
  --windows N      windows per block (default 50; each block's first starts from a sync and is not counted)
  --warmup S       seconds of unmeasured block pairs first (default 5 on a wall clock, 0 in virtual
                   time): V8 compiles the message path over its first thousands of messages
  -h, --help       this text`;

const options = {
  provider: { type: 'string', default: 'tcp' },
  size: { type: 'string', default: '8' },
  window: { type: 'string', default: '64' },
  blocks: { type: 'string', default: '20' },
  windows: { type: 'string', default: '50' },
  warmup: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values, check, integer } = benchOptions('window-timeline', HELP, options);
const size = integer('size', 0);
const window = integer('window', 1);
const blocks = integer('blocks', 1);
const windowsPerBlock = integer('windows', 2);
check('warmup', (v) => v !== '' && Number(v) >= 0 && Number(v) <= 600, 'be a number of seconds from 0 to 600');

/** The points each rank marks per window, by index in its row of stamps. */
const SENDER = ['posting', 'posted', 'acknowledged'];
const RECEIVER = ['receiving', 'received', 'last', 'acknowledging'];
const POINTS = Math.max(SENDER.length, RECEIVER.length);

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  if (world.size !== 2) throw new Error(`window-timeline runs on 2 ranks, not ${world.size}`);
  const rank = world.rank;
  const peer = 1 - rank;
  const simulated = mpi.job.ia.provider.capabilities.inProcess;
  const warmupSeconds = values.warmup === undefined ? (simulated ? 0 : 5) : Number(values.warmup);
  const dat = await DatPair.start(mpi, Math.max(size, 4), window);
  const none = new Uint8Array(0);
  const together = () => world.sendrecv(none, peer, 9, none, peer, 9);

  // One clock for both ranks, in microseconds: the simulator's, or the host's wall clock from rank
  // 0's time origin (both processes read the same system clock; the base keeps full precision).
  const base = new Float64Array([performance.timeOrigin]);
  await world.bcast(base, 0);
  const now = simulated ? () => mpi.wtime() * 1e6 : () => (performance.timeOrigin - base[0] + performance.now()) * 1e3;

  const points = rank === 0 ? SENDER : RECEIVER;
  /** Stamps of the block being run: [window][point]. */
  const stamps = new Float64Array(windowsPerBlock * POINTS);
  let current = 0;
  const mark = (point) => {
    stamps[current * POINTS + points.indexOf(point)] = now();
  };

  const buf = new Uint8Array(size);
  const ack = new Uint8Array(4);
  const mpiWindow = async () => {
    const reqs = [];
    if (rank === 0) {
      mark('posting');
      for (let w = 0; w < window; w++) reqs.push(world.isend(buf, peer, 2));
      mark('posted');
      await Request.waitAll(reqs);
      await world.recv(ack, peer, 3);
      mark('acknowledged');
    } else {
      mark('receiving');
      for (let w = 0; w < window; w++) reqs.push(world.irecv(buf, peer, 2));
      mark('received');
      await Request.waitAll(reqs);
      mark('last');
      await world.send(ack, peer, 3);
      mark('acknowledging');
    }
  };
  const datWindow = () => dat.markedWindow(size, window, mark);

  /** A block of windows; its stamps, both ranks', on rank 0 (undefined on rank 1). */
  const block = async (body) => {
    stamps.fill(NaN);
    await together();
    for (current = 0; current < windowsPerBlock; current++) await body();
    const theirs = new Float64Array(stamps.length);
    await world.sendrecv(stamps, peer, 10, theirs, peer, 10);
    return rank === 0 ? { sender: stamps.slice(), receiver: theirs } : undefined;
  };

  const warm = mpi.wtime() + warmupSeconds;
  const more = new Uint8Array(1);
  do {
    await block(mpiWindow);
    await block(datWindow);
    more[0] = mpi.wtime() < warm ? 1 : 0;
    await world.bcast(more, 0);
  } while (more[0] === 1);

  const runs = { mpi: [], dat: [] };
  for (let b = 0; b < blocks; b++) {
    runs.mpi.push(await block(mpiWindow));
    runs.dat.push(await block(datWindow));
  }

  if (rank === 0) {
    const rows = [
      ['window', (s, r, i) => s(i + 1, 'posting') - s(i, 'posting')],
      ['1 sender posts the window', (s, r, i) => s(i, 'posted') - s(i, 'posting')],
      ['2 last post -> every message seen', (s, r, i) => r(i, 'last') - s(i, 'posted')],
      ['3 acknowledgement sent (the call)', (s, r, i) => r(i, 'acknowledging') - r(i, 'last')],
      ['4 call returned -> sender sees it', (s, r, i) => s(i, 'acknowledged') - r(i, 'acknowledging')],
      ['5 sender sees it -> next first post', (s, r, i) => s(i + 1, 'posting') - s(i, 'acknowledged')],
      ['  off the path: next receives posted', (s, r, i) => r(i + 1, 'received') - r(i + 1, 'receiving')],
    ];
    /** The median over blocks of each block's median of `stage`, over its windows 1 .. n-2 (0 starts from a sync; n-1 has no next). */
    const stage = (list, f) =>
      median(
        list.map(({ sender, receiver }) => {
          const s = (i, p) => sender[i * POINTS + SENDER.indexOf(p)];
          const r = (i, p) => receiver[i * POINTS + RECEIVER.indexOf(p)];
          const v = [];
          for (let i = 1; i + 1 < windowsPerBlock; i++) v.push(f(s, r, i));
          return median(v);
        }),
      );
    const fixed = (v, width) => (Number.isNaN(v) ? '-' : v.toFixed(1)).padStart(width);
    process.stdout.write(`# window-timeline (dapl.ts @dapl/mpi, device ${mpi.parameters.device}, provider ${mpi.provider}${simulated ? ', virtual time' : ''}): ${size} B, window ${window}, ${blocks} block pairs of ${windowsPerBlock} windows after ${warmupSeconds} s of warm-up pairs\n`);
    process.stdout.write(`# stage (medians over blocks, us)              MPI       DAT   MPI-DAT\n`);
    for (const [name, f] of rows) {
      const off = name.startsWith('  off');
      const m = stage(runs.mpi, f);
      // DAT posts its receives in advance: nothing to time off the path.
      const d = off ? NaN : stage(runs.dat, f);
      process.stdout.write(`${name.padEnd(40)}${fixed(m, 10)}${fixed(d, 10)}${fixed(off ? NaN : m - d, 10)}\n`);
    }
  }
  await together();
  await dat.close();
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
