#!/usr/bin/env node
// osu_bw's window, measured finely enough to judge a change of tens of microseconds per window:
// rank 0 isends `window` messages of one size, rank 1 irecvs them, then a 4-byte ack (OSU's loop
// body), in blocks of `--windows` timed windows, each block opened by `--skip` untimed ones (its first
// window starts from the sync between blocks, not from an ack), after `--warmup` seconds of the same. MPI blocks and DAT
// blocks (the same exchange with DAT send/recv on the same IA, as bench/osu.mjs does it) alternate
// in one job, so both see the same machine at the same moment. Where the provider writes with
// immediate data, a third block per pair streams the window by DAT RDMA writes with immediate: the
// transfer MPI's receiver-initiated rendezvous makes, without MPI, so a gap can be told apart as
// the provider's write path or MPI's own. Per block and window: wall time, each rank's CPU time
// (process.cpuUsage, user + system) and the time in the MPI posting loops. Reported: medians over
// blocks and the median of the per-pair bandwidth ratios MPI / DAT.
//
//   node bench/stream-window.mjs [--provider tcp] [--sizes 65536,131072] [--window 64] [--blocks 40] [--windows 30] [--skip 1]
//
// It launches itself with `dapl run -n 2`.
import { Mpi, Request } from '@dapl/mpi';
import { DatPair } from './lib/dat-pair.mjs';
import { skipping } from './lib/skipping.mjs';
import { runAsJob } from './lib/job.mjs';
import { median, quantile } from './lib/median.mjs';
import { benchOptions } from './lib/options.mjs';

const HELP = `usage: node bench/stream-window.mjs [options]

osu_bw's window (rank 0 isends a window of messages, rank 1 irecvs them, then acks) on @dapl/mpi,
in blocks alternating with the same exchange on DAT send/recv, and on DAT RDMA write with immediate
where the provider has it, in the same job. Reports microseconds, CPU microseconds and microseconds
spent posting (the isend and irecv loops) per window (medians over blocks), the median per-pair
bandwidth ratio MPI / DAT, and the same against the DAT write stream (DATw: '-' without it).

  --provider KEY     tcp (default), ib, lapi, combuf (virtual time; the CPU and posting figures
                     are the host's then, for the one process that runs both ranks)
  --sizes LIST       comma-separated message sizes in bytes (default 65536)
  --window N         messages per window (default 64)
  --blocks N         measured MPI / DAT block pairs per size (default 40)
  --windows N        timed windows per block (default 30)
  --skip N           untimed windows that open each block (default 1: a block's first window
                     starts from the sync between blocks, not from the previous window's ack,
                     so MPI's receives are not yet advertised when its sends start)
  --warmup S         seconds of unmeasured block pairs first, per size (default 8: V8 compiles
                     the message path over its first seconds, MPI's stream for ~4 s on tcp;
                     with 3, 64 KiB gave 0.80 where 8 gave 0.88-0.90)
  --blocks-out       also print every block's figures
  -h, --help         this text`;

const options = {
  provider: { type: 'string', default: 'tcp' },
  sizes: { type: 'string', default: '65536' },
  window: { type: 'string', default: '64' },
  blocks: { type: 'string', default: '40' },
  windows: { type: 'string', default: '30' },
  skip: { type: 'string', default: '1' },
  warmup: { type: 'string', default: '8' },
  'blocks-out': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};
const { values, check, integer } = benchOptions('stream-window', HELP, options);
const window = integer('window', 1);
const blocks = integer('blocks', 1);
const windowsPerBlock = integer('windows', 1);
const skip = integer('skip', 0);
check('warmup', (v) => v !== '' && Number(v) >= 0, 'be a number of seconds >= 0');
const warmupSeconds = Number(values.warmup);
check('sizes', (v) => v.split(',').every((s) => s !== '' && Number.isInteger(Number(s)) && Number(s) >= 0), 'list byte counts >= 0');
const sizes = values.sizes.split(',').map((s) => Number(s));

async function benchmark() {
  const mpi = await Mpi.init();
  const world = mpi.world;
  if (world.size !== 2) throw new Error(`stream-window runs on 2 ranks, not ${world.size}`);
  const rank = world.rank;
  const peer = 1 - rank;
  const maxSize = Math.max(...sizes, 4);
  const dat = await DatPair.start(mpi, maxSize, window);
  const none = new Uint8Array(0);
  const together = () => world.sendrecv(none, peer, 9, none, peer, 9);
  const ack = new Uint8Array(4);

  /** One block: wall microseconds per timed window, CPU microseconds per window (all of the block's). */
  const block = async (body) => {
    await together();
    const cpu = process.cpuUsage();
    const wall = await body();
    const used = process.cpuUsage(cpu);
    return [(wall * 1e6) / windowsPerBlock, (used.user + used.system) / (skip + windowsPerBlock)];
  };

  if (rank === 0) {
    process.stdout.write(`# stream-window (dapl.ts @dapl/mpi, device ${mpi.parameters.device}, provider ${mpi.provider}): window ${window}, ${blocks} block pairs of ${windowsPerBlock} windows (each block after ${skip} untimed) after ${warmupSeconds} s of warm-up pairs\n`);
    process.stdout.write(`# per window: wall us (median over blocks), CPU us of each rank, us in the MPI posting loops (isends on rank 0, irecvs on rank 1); ratio = MPI / DAT bandwidth (DAT time / MPI time), median over pairs, and the middle half of the pairs' ratios (quartiles); DATw: the window by DAT RDMA write with immediate, ratio w = MPI / DATw bandwidth\n`);
    process.stdout.write(`# Size         MPI us     DAT us   ratio   quartiles   MPI cpu0   DAT cpu0   MPI cpu1   DAT cpu1   isends0   irecvs1    DATw us ratio w\n`);
  }
  for (const n of sizes) {
    const buf = new Uint8Array(n);
    // Seconds spent in the posting loops (isends on rank 0, irecvs on rank 1) of the MPI blocks.
    let posting = 0;
    const mpiBody = () =>
      skipping(() => mpi.wtime(), skip, windowsPerBlock, async (timed) => {
        const reqs = [];
        const start = performance.now();
        if (rank === 0) {
          for (let w = 0; w < window; w++) reqs.push(world.isend(buf, peer, 2));
          if (timed) posting += performance.now() - start;
          await Request.waitAll(reqs);
          await world.recv(ack, peer, 3);
        } else {
          for (let w = 0; w < window; w++) reqs.push(world.irecv(buf, peer, 2));
          if (timed) posting += performance.now() - start;
          await Request.waitAll(reqs);
          await world.send(ack, peer, 3);
        }
      });
    const datBody = () => dat.stream(n, windowsPerBlock, window, skip);
    const writeBody = () => dat.streamWrite(n, windowsPerBlock, window, skip);
    // Rows, one per pair: [MPI wall, MPI cpu, DAT wall, DAT cpu, MPI posting, DATw wall, DATw cpu] in us per window (DATw NaN without it).
    const ROW = 7;
    // Warm-up pairs until rank 0 has seen --warmup seconds (at least one pair); rank 0 decides for both.
    const warm = mpi.wtime() + warmupSeconds;
    const more = new Uint8Array(1);
    do {
      await block(mpiBody);
      await block(datBody);
      if (dat.writable) await block(writeBody);
      more[0] = mpi.wtime() < warm ? 1 : 0;
      await world.bcast(more, 0);
    } while (more[0] === 1);
    const rows = [];
    for (let b = 0; b < blocks; b++) {
      posting = 0;
      const m = await block(mpiBody);
      const post = (posting * 1e3) / windowsPerBlock;
      const d = await block(datBody);
      const w = dat.writable ? await block(writeBody) : [NaN, NaN];
      rows.push([...m, ...d, post, ...w]);
    }
    // Rank 1's CPU figures to rank 0.
    const mine = Float64Array.from(rows.flat());
    const theirs = new Float64Array(mine.length);
    await world.sendrecv(mine, peer, 10, theirs, peer, 10);
    if (rank !== 0) continue;
    const other = rows.map((_, i) => Array.from(theirs.subarray(ROW * i, ROW * i + ROW)));
    if (values['blocks-out']) {
      rows.forEach((r, i) => process.stdout.write(`#   block ${String(i + 1).padStart(3)}: MPI ${r[0].toFixed(1)} us (cpu ${r[1].toFixed(1)} / ${other[i][1].toFixed(1)}), DAT ${r[2].toFixed(1)} us (cpu ${r[3].toFixed(1)} / ${other[i][3].toFixed(1)}), ratio ${(r[2] / r[0]).toFixed(2)}, posting ${r[4].toFixed(1)} / ${other[i][4].toFixed(1)} us, DATw ${dat.writable ? `${r[5].toFixed(1)} us` : '-'}\n`));
    }
    const col = (table, k) => median(table.map((r) => r[k]));
    // Bandwidth ratio MPI / DAT is DAT time / MPI time.
    const ratios = rows.map((r) => r[2] / r[0]);
    const spread = `${quantile(ratios, 0.25).toFixed(2)}-${quantile(ratios, 0.75).toFixed(2)}`;
    const fixed = (v, width, digits) => v.toFixed(digits).padStart(width);
    const times = [col(rows, 1), col(rows, 3), col(other, 1), col(other, 3), col(rows, 4), col(other, 4)];
    // Against the write stream: MPI / DATw bandwidth, per pair.
    const byWrite = dat.writable ? `${fixed(col(rows, 5), 11, 1)}${fixed(median(rows.map((r) => r[5] / r[0])), 8, 2)}` : `${'-'.padStart(11)}${'-'.padStart(8)}`;
    process.stdout.write(`${String(n).padEnd(10)}${fixed(col(rows, 0), 11, 1)}${fixed(col(rows, 2), 11, 1)}${fixed(median(ratios), 8, 2)}${spread.padStart(12)}${times.map((v) => fixed(v, 11, 1)).join('')}${byWrite}\n`);
  }
  await together();
  await dat.close();
  await mpi.finalize();
}

await runAsJob(import.meta.url, 2, values.provider, benchmark);
