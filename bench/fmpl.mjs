#!/usr/bin/env node
// FMPL beside the paper's figures (Tatebe et al. §5, Hitachi SR8000, 16 nodes): 8-byte one-way latency
// (paper 12.8 µs), the same with the receive posted in advance (9.9 µs), throughput up to 16 MB
// (999 MB/s), hardware and software barrier (8 µs hardware), broadcast latency for 8 KB and throughput
// up to 8 MB on all ranks (877 MB/s hardware), and 4-byte latency with 200 receives outstanding
// (9.9 µs). On combuf the times are virtual and come out of the model's hardware figures (TCW-reused
// DMA 4.7 µs, TCW creation, the 1000 MB/s link, the 8 µs barrier); on tcp they are wall-clock, each
// figure the median of 7 rounds of up to 1,000 messages, after untimed rounds for the paths the
// ping-pongs do not warm (200 outstanding, barrier, broadcast).
//
//   node bench/fmpl.mjs [--provider combuf|tcp|ib|lapi] [-n 16] [--collectives-only] [--software] [--json FILE]
import { parseArgs } from 'node:util';
import { Fmpl } from '@dapl/fmpl';
import { runAsJob } from './lib/job.mjs';
import { median } from './lib/median.mjs';
import { benchRecord } from './lib/record.mjs';

const { values } = parseArgs({
  options: {
    provider: { type: 'string', default: 'combuf' },
    ranks: { type: 'string', short: 'n', default: '16' },
    'collectives-only': { type: 'boolean', default: false },
    software: { type: 'boolean', default: false },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write('usage: node bench/fmpl.mjs [--provider KEY] [-n N] [--collectives-only] [--software] [--json FILE]\n\n--json FILE also writes the figures, beside the paper\'s, as a record (bench/lib/record.mjs).\n');
  process.exit(0);
}

const OUTSTANDING = 200;

async function benchmark() {
  const fmpl = await Fmpl.init({ matchingAreas: OUTSTANDING + 8, collectives: values.software ? 'software' : 'auto' });
  const { rank, size } = fmpl;
  const out = (text) => rank === 0 && process.stdout.write(`${text}\n`);
  const us = (s) => (s * 1e6).toFixed(2);
  const virtual = ['combuf', 'ib', 'lapi'].includes(fmpl.provider);
  const record = benchRecord('fmpl', { timeBase: virtual ? 'virtual' : 'wall' });
  /** Record a figure of this run (and the paper's, where it gives one) for `test` at `bytes`. */
  const note = (test, bytes, value, unit, paper) => {
    if (rank !== 0) return;
    record.add({ test, provider: fmpl.provider, size: bytes, series: 'FMPL', value, unit });
    if (paper !== undefined) record.add({ test, provider: fmpl.provider, size: bytes, series: 'the paper (SR8000)', value: paper, unit });
  };
  out(`# FMPL on ${fmpl.provider} (${size} ranks; ${virtual ? 'virtual time' : 'wall clock'}), beside the SR8000 figures of the FMPL paper (Tatebe et al.)`);
  // Virtual time is exact in 20; on a wall clock small messages repeat up to 1,000 times a round
  // (64 MiB a size at most, 20 at least).
  const repsFor = (n) => (virtual ? 20 : Math.max(20, Math.min(1000, Math.floor((64 << 20) / Math.max(n, 1)))));
  // In virtual time one round is exact. On a wall clock, `untimed` rounds first (V8 compiles a path
  // over its first few thousand messages), then the median of 7.
  const warmMedian = async (round, untimed) => {
    if (virtual) return round();
    for (let i = 0; i < untimed; i++) await round();
    const times = [];
    for (let i = 0; i < 7; i++) times.push(await round());
    return median(times);
  };

  if (!values['collectives-only'] && size >= 2 && rank < 2) {
    const peer = 1 - rank;
    // Ping-pong: one-way = half the round trip; on a wall clock the median of 7 rounds.
    const pingPong = (n, advance) => warmMedian(() => pingPongRound(n, advance), 0);
    const pingPongRound = async (n, advance) => {
      const buf = new Uint8Array(n);
      if (advance) fmpl.irecv(buf, peer, 1);
      const start = fmpl.wtime();
      const reps = repsFor(n);
      for (let i = 0; i < reps; i++) {
        if (rank === 0) {
          await fmpl.send(buf, peer, 1);
          if (advance) {
            await fmpl.irecvWait(peer, 1);
            if (i < reps - 1) fmpl.irecv(buf, peer, 1);
          } else await fmpl.recv(buf, peer, 1);
        } else {
          if (advance) {
            await fmpl.irecvWait(peer, 1);
            if (i < reps - 1) fmpl.irecv(buf, peer, 1);
          } else await fmpl.recv(buf, peer, 1);
          await fmpl.send(buf, peer, 1);
        }
      }
      return (fmpl.wtime() - start) / (2 * reps);
    };
    await pingPong(8, false); // warm-up: connections, registrations, TCWs
    const oneWay = await pingPong(8, false);
    note('one-way latency', 8, oneWay * 1e6, 'us', 12.8);
    out(`8-byte one-way latency  ${us(oneWay)} us   (paper: 12.8 us)`);
    // Table 1 of the paper: where a blocking 8-byte send and receive spend their time (rank 0 sends, rank 1 receives).
    const b = fmpl.breakdown;
    const peerB = new Float64Array(2);
    if (rank === 1) await fmpl.send(new Float64Array([b.recvPostHeader, b.recvWaitBody]), 0, 4);
    else await fmpl.recv(peerB, 1, 4);
    note('breakdown: send waits for the header', 8, b.sendWaitHeader * 1e6, 'us', 5.0);
    note('breakdown: send writes the body', 8, b.sendBody * 1e6, 'us', 8.1);
    out(`  breakdown, send: wait for the header ${us(b.sendWaitHeader)} us, body ${us(b.sendBody)} us   (the paper's Table 1: recv header 5.0, send msg 8.1)`);
    out(`  breakdown, receive: post the header ${us(peerB[0])} us, wait for the body ${us(peerB[1])} us   (the paper's Table 1: send header 6.1, recv msg 5.6)`);
    const posted = await pingPong(8, true);
    note('one-way latency, receive posted in advance', 8, posted * 1e6, 'us', 9.9);
    out(`  receive posted in advance  ${us(posted)} us   (paper: 9.9 us)`);
    out('# Size        Throughput (MB/s, ping-pong)   (paper: 999 MB/s at 16 MB)');
    for (const n of [4096, 65536, 1 << 20, 16 << 20]) {
      const t = await pingPong(n, false);
      note('throughput', n, n / t / 1e6, 'MB/s', n === 16 << 20 ? 999 : undefined);
      out(`${String(n).padEnd(12)}${(n / t / 1e6).toFixed(1).padStart(12)}`);
    }
    // 200 receives outstanding on different indexes; each message then finds its header at once.
    const bufs = Array.from({ length: OUTSTANDING }, () => new Uint8Array(4));
    const ack = new Uint8Array(4);
    const outstandingRound = async () => {
      if (rank === 1) bufs.forEach((b, i) => fmpl.irecv(b, peer, 8 + i));
      // Rank 1 says it has posted them (sender-side matching: a send waits for its receive, so one side sends first).
      if (rank === 1) await fmpl.send(new Uint8Array(0), peer, 2);
      else await fmpl.recv(new Uint8Array(0), peer, 2);
      const start = fmpl.wtime();
      for (let i = 0; i < OUTSTANDING; i++) {
        if (rank === 0) {
          fmpl.irecv(ack, peer, 3);
          await fmpl.send(bufs[i], peer, 8 + i);
          await fmpl.irecvWait(peer, 3);
        } else {
          await fmpl.irecvWait(peer, 8 + i);
          await fmpl.send(ack, peer, 3);
        }
      }
      return (fmpl.wtime() - start) / (2 * OUTSTANDING);
    };
    const outstanding = await warmMedian(outstandingRound, 10);
    note(`one-way latency, ${OUTSTANDING} receives outstanding`, 4, outstanding * 1e6, 'us', 9.9);
    out(`4-byte one-way latency, ${OUTSTANDING} receives outstanding  ${us(outstanding)} us   (paper: 9.9 us)`);
  }

  await fmpl.barrier();
  await fmpl.barrier();
  const barrierRound = async () => {
    const start = fmpl.wtime();
    const barriers = repsFor(8);
    for (let i = 0; i < barriers; i++) await fmpl.barrier();
    return (fmpl.wtime() - start) / barriers;
  };
  const barrier = await warmMedian(barrierRound, 3);
  note(`barrier, ${size} ranks`, null, barrier * 1e6, 'us', fmpl.counters().hwBarriers > 0 ? 8 : undefined);
  out(`barrier  ${us(barrier)} us`);
  out(`  (${fmpl.counters().hwBarriers > 0 ? 'hardware' : 'software'}; paper: 8 us hardware)`);
  const sizes = values['collectives-only'] ? [8192] : [8192, 65536, 1 << 20, 8 << 20];
  for (const n of sizes) {
    const buf = new Uint8Array(n);
    await fmpl.bcast(buf, 0);
    const bcastRound = async () => {
      await fmpl.barrier();
      const start = fmpl.wtime();
      const bcasts = repsFor(n);
      for (let i = 0; i < bcasts; i++) await fmpl.bcast(buf, 0);
      return (fmpl.wtime() - start) / bcasts;
    };
    const t = await warmMedian(bcastRound, 2);
    if (n === 8192) note(`bcast latency, ${size} ranks`, n, t * 1e6, 'us');
    else note(`bcast throughput, ${size} ranks`, n, n / t / 1e6, 'MB/s', n === 8 << 20 && fmpl.counters().hwBcasts > 0 ? 877 : undefined);
    if (n === 8192) out(`bcast 8 KB  ${us(t)} us`);
    else out(`bcast ${String(n).padEnd(9)} ${(n / t / 1e6).toFixed(1)} MB/s${n === 8 << 20 ? '   (paper: 877 MB/s hardware, 16 nodes)' : ''}`);
  }
  out(`  (${fmpl.counters().hwBcasts > 0 ? 'hardware' : 'software'} broadcast)`);
  if (rank === 0 && values.json !== undefined) record.write(values.json);
  await fmpl.finalize();
}

await runAsJob(import.meta.url, values.ranks, values.provider, benchmark);
