#!/usr/bin/env node
// @dapl/mpi on the shm provider (ranks as worker threads) beside C MPI's shared memory, in the same
// run: bench/c/pingpong.c (osu_latency's ping-pong and osu_bw's window of 64) is compiled with
// mpicc and run under mpiexec, alternating round by round with a `dapl run -n 2 --provider shm` job
// that times the same exchanges with @dapl/mpi (buffers from mpi.allocMem and plain Uint8Arrays)
// and DAT send/recv on MPI's IA (bench/lib/dat-pair.mjs). Each round pairs the two runs; the
// ratios are medians over the rounds of each pair's ratio. The last line is
//   shm/mpich: latency 8 B R×, bandwidth 1 MiB R×
// (shm's latency over MPICH's: lower is better; shm's allocMem bandwidth over MPICH's: higher is).
// Without mpicc or mpiexec (MPICH or Open MPI with its development files) only the shm side runs.
//
//   node bench/c-mpi.mjs [--rounds N] [--small BYTES] [--large BYTES]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerRank } from '@dapl/core';
import { benchOptions } from './lib/options.mjs';
import { median } from './lib/median.mjs';

const HELP = `usage: node bench/c-mpi.mjs [options]

@dapl/mpi over shm (2 worker-thread ranks) beside C MPI over shared memory (bench/c/pingpong.c,
compiled with mpicc, run with mpiexec -n 2), alternating rounds in one run: 8 B latency (half a
round trip) and 1 MiB bandwidth (window of 64), MPI with allocMem and with plain buffers, DAT
send/recv latency; ratios are medians over rounds of the paired ratios.

  --rounds N       paired rounds (default 3)
  --small BYTES    latency message size (default 8)
  --large BYTES    bandwidth message size (default 1048576)
  -h, --help       this text`;

const { integer } = benchOptions('c-mpi', HELP, {
  rounds: { type: 'string', default: '3' },
  small: { type: 'string', default: '8' },
  large: { type: 'string', default: String(1 << 20) },
  help: { type: 'boolean', short: 'h', default: false },
});
const rounds = integer('rounds', 1);
const small = integer('small', 1);
const large = integer('large', 1);

if (workerRank() !== undefined) {
  const { measureShm } = await import('./lib/shm-figures.mjs');
  await measureShm(small, large);
} else {
  await orchestrate();
}

async function orchestrate() {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
  const c = buildC(join(here, 'c', 'pingpong.c'));
  if (c.problem !== undefined) process.stdout.write(`# C MPI: ${c.problem}; only the shm side runs\n`);
  else process.stdout.write(`# C MPI: ${c.mpiexec} -n 2 ${c.binary} (${c.library})\n`);
  process.stdout.write(`# shm: dapl run -n 2 --provider shm bench/c-mpi.mjs; ${rounds} paired rounds; latency ${small} B (us, half round trip), bandwidth ${large} B (MB/s, window 64)\n`);
  process.stdout.write(`# round   C lat    MPI lat  DAT lat    C bw      MPI bw alloc  MPI bw plain   lat shm/C  bw alloc/C  bw plain/C\n`);
  const pairs = [];
  for (let r = 0; r < rounds; r++) {
    const cFigures = c.problem === undefined ? runC(c, small, large) : undefined;
    const shm = runShm(dapl, small, large);
    const ratio = (a, b) => (a !== undefined && b !== undefined ? a / b : undefined);
    const pair = {
      latency: ratio(shm.mpiLatency, cFigures?.latency),
      bwAlloc: ratio(shm.bwAlloc, cFigures?.bandwidth),
      bwPlain: ratio(shm.bwPlain, cFigures?.bandwidth),
      shm,
      c: cFigures,
    };
    pairs.push(pair);
    const f = (v, d = 2, w = 9) => (v === undefined ? '-' : v.toFixed(d)).padStart(w);
    process.stdout.write(`${String(r + 1).padEnd(7)}${f(cFigures?.latency)}${f(shm.mpiLatency)}${f(shm.datLatency)}${f(cFigures?.bandwidth, 0, 10)}${f(shm.bwAlloc, 0, 14)}${f(shm.bwPlain, 0, 14)}${f(pair.latency, 2, 12)}${f(pair.bwAlloc, 2, 12)}${f(pair.bwPlain, 2, 12)}\n`);
  }
  const med = (pick) => median(pairs.map(pick));
  process.stdout.write(`# medians: MPI ${small} B ${med((p) => p.shm.mpiLatency).toFixed(2)} us, DAT ${small} B ${med((p) => p.shm.datLatency).toFixed(2)} us, MPI ${large} B ${med((p) => p.shm.bwAlloc).toFixed(0)} MB/s (allocMem), ${med((p) => p.shm.bwPlain).toFixed(0)} MB/s (plain)`);
  if (c.problem !== undefined) {
    process.stdout.write('\n');
    return;
  }
  process.stdout.write(`; C ${med((p) => p.c.latency).toFixed(2)} us, ${med((p) => p.c.bandwidth).toFixed(0)} MB/s\n`);
  process.stdout.write(`# plain-array bandwidth over C's: ${med((p) => p.bwPlain).toFixed(2)}x\n`);
  process.stdout.write(`shm/${c.name}: latency ${sizeName(small)} ${med((p) => p.latency).toFixed(2)}×, bandwidth ${sizeName(large)} ${med((p) => p.bwAlloc).toFixed(2)}×\n`);
}

/** Compile the C test once per run; `problem` says why it cannot run. */
function buildC(source) {
  const mpicc = which('mpicc');
  const mpiexec = which('mpiexec.mpich') ?? which('mpiexec');
  if (mpicc === undefined || mpiexec === undefined) return { problem: 'mpicc or mpiexec not found (apt-get install mpich libmpich-dev)' };
  const dir = mkdtempSync(join(tmpdir(), 'dapl-c-mpi-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const binary = join(dir, 'pingpong');
  const built = spawnSync(mpicc, ['-O2', '-o', binary, source], { encoding: 'utf8' });
  if (built.status !== 0) return { problem: `mpicc failed (${built.stderr.trim().split('\n')[0]}; apt-get install libmpich-dev)` };
  const version = spawnSync(mpiexec, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  const name = /Open MPI|OpenRTE/i.test(version) ? 'openmpi' : 'mpich';
  const library = version.split('\n').find((l) => /version/i.test(l))?.trim() ?? name;
  return { binary, mpiexec, name, library };
}

function runC(c, smallBytes, largeBytes) {
  const out = execFileSync(c.mpiexec, ['-n', '2', c.binary, String(smallBytes), String(largeBytes)], { encoding: 'utf8', timeout: 300_000 });
  return { latency: Number(/^latency \d+ ([0-9.]+)$/m.exec(out)[1]), bandwidth: Number(/^bandwidth \d+ ([0-9.]+)$/m.exec(out)[1]) };
}

function runShm(dapl, smallBytes, largeBytes) {
  const script = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [dapl, 'run', '-n', '2', '--provider', 'shm', script, '--small', String(smallBytes), '--large', String(largeBytes)], { encoding: 'utf8', timeout: 600_000 });
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (line === undefined) throw new Error(`c-mpi: the shm job printed no figures:\n${out}`);
  return JSON.parse(line);
}

function which(command) {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function sizeName(bytes) {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes >> 20} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes >> 10} KiB`;
  return `${bytes} B`;
}
