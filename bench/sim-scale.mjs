// The simulator at scale: wall time, CPU time, events per second and peak RSS of examples/pi.mjs
// (bcast + reduce) and of a 3-lap token ring + 3 allreduces of 1,024 doubles
// (bench/lib/ring-allreduce.mjs) on a simulated provider, for 16 ... 4,096 ranks (or --sizes). Each
// job is a `dapl run` process of its own, so its peak RSS is its own; "MB/rank" is the marginal
// memory of a rank (the RSS growth from the previous size over the ranks added), "lap" the wall time
// of one ring lap between the first (which also makes the connections) and the last, "lap CPU" the process's CPU
// time in it (on a shared host the wall time counts other processes' turns too). Printed as a table; --json
// FILE records the rows.
//
//   node bench/sim-scale.mjs [--sizes 16,64,256,1024,4096] [--programs pi,ring] [--provider ib] [--json FILE] [--timeout S]
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { benchOptions } from './lib/options.mjs';

const HELP = `usage: node bench/sim-scale.mjs [--sizes LIST] [--programs pi,ring] [--provider KEY] [--json FILE] [--timeout S] [-h]
Runs examples/pi.mjs and bench/lib/ring-allreduce.mjs as 'dapl run -n N' jobs on a simulated
provider (default ib) and prints wall time, CPU time, events, events per second, peak RSS, memory
per rank and (ring) wall time per lap for each N (default 16,64,256,1024,4096).`;

const PROGRAMS = {
  pi: fileURLToPath(new URL('../examples/pi.mjs', import.meta.url)),
  ring: fileURLToPath(new URL('./lib/ring-allreduce.mjs', import.meta.url)),
};
const DAPL = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));
const USAGE = fileURLToPath(new URL('./lib/report-usage.mjs', import.meta.url));

const { values, check, integer } = benchOptions('sim-scale', HELP, {
  sizes: { type: 'string', default: '16,64,256,1024,4096' },
  programs: { type: 'string', default: 'pi,ring' },
  provider: { type: 'string', default: 'ib' },
  json: { type: 'string' },
  timeout: { type: 'string', default: '3600' },
  help: { type: 'boolean', short: 'h' },
});
check('sizes', (v) => /^\d+(,\d+)*$/.test(v) && v.split(',').every((n) => Number(n) >= 1), 'be a comma-separated list of rank counts >= 1');
check('programs', (v) => v.split(',').every((p) => p in PROGRAMS), `be a comma-separated list of ${Object.keys(PROGRAMS).join(', ')}`);
const timeoutS = integer('timeout', 1);
const sizes = values.sizes.split(',').map(Number);
const programs = values.programs.split(',');

/** One job: its exit code, wall time, and what it printed about itself. */
function runJob(program, ranks) {
  return new Promise((resolve) => {
    const args = ['--import', USAGE, DAPL, 'run', '-n', String(ranks), '--provider', values.provider, '--timeout', String(timeoutS), PROGRAMS[program]];
    const child = spawn(process.execPath, args, { env: { ...process.env, DAPL_SIM_REPORT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const started = performance.now();
    child.on('close', (code) => resolve({ code, wallMs: performance.now() - started, out, err }));
  });
}

function number(text, pattern) {
  const match = pattern.exec(text);
  return match === null ? Number.NaN : Number(match[1]);
}

function row(program, ranks, job) {
  const usage = /sim-scale-usage maxRssKiB=(\d+) userUs=(\d+) systemUs=(\d+)/.exec(job.err);
  return {
    program,
    ranks,
    ok: job.code === 0,
    wallS: job.wallMs / 1000,
    cpuS: usage === null ? Number.NaN : (Number(usage[2]) + Number(usage[3])) / 1e6,
    events: number(job.err, /virtual end time [\d.]+ ns, (\d+) events/),
    kernelWallS: number(job.err, /events in ([\d.]+) ms wall/) / 1000,
    eventsPerSecond: number(job.err, /ms wall \((\d+) events\/s\)/),
    peakRssMb: usage === null ? Number.NaN : Number(usage[1]) / 1024,
    virtualEndUs: number(job.err, /virtual end time ([\d.]+) ns/) / 1000,
    lapWallMs: number(job.out, /wall time per lap between the first and the last ([\d.]+) ms/),
    lapCpuMs: number(job.out, /wall time per lap between the first and the last [\d.]+ ms \(CPU ([\d.]+) ms\)/),
    failure: job.code === 0 ? undefined : job.err.split('\n').find((line) => line.startsWith('dapl run:')) ?? `exit code ${job.code}`,
  };
}

const pad = (value, width) => String(value).padEnd(width);
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

process.stdout.write(`# dapl run -n N --provider ${values.provider}: examples/pi.mjs (pi) and bench/lib/ring-allreduce.mjs (ring)\n`);
process.stdout.write(
  `# ${pad('program', 8)}${pad('ranks', 8)}${pad('wall (s)', 10)}${pad('CPU (s)', 10)}${pad('events', 10)}${pad('events/s', 10)}${pad('peak RSS (MB)', 15)}${pad('MB/rank', 9)}${pad('lap (ms)', 10)}${pad('lap CPU', 9)}virtual end (us)\n`,
);
const rows = [];
for (const program of programs) {
  let previous;
  for (const ranks of sizes) {
    const r = row(program, ranks, await runJob(program, ranks));
    r.marginalMbPerRank = previous === undefined || !r.ok ? Number.NaN : (r.peakRssMb - previous.peakRssMb) / (ranks - previous.ranks);
    rows.push(r);
    process.stdout.write(
      `${pad(program, 10)}${pad(ranks, 8)}${pad(fixed(r.wallS, 1), 10)}${pad(fixed(r.cpuS, 1), 10)}${pad(Number.isFinite(r.events) ? r.events : '-', 10)}${pad(Number.isFinite(r.eventsPerSecond) ? r.eventsPerSecond : '-', 10)}${pad(fixed(r.peakRssMb, 0), 15)}${pad(fixed(r.marginalMbPerRank, 3), 9)}${pad(fixed(r.lapWallMs, 1), 10)}${pad(fixed(r.lapCpuMs, 1), 9)}${fixed(r.virtualEndUs, 3)}${r.ok ? '' : `  FAILED: ${r.failure}`}\n`,
    );
    if (r.ok) previous = r;
  }
}
if (values.json !== undefined) {
  writeFileSync(values.json, `${JSON.stringify({ provider: values.provider, date: new Date().toISOString(), rows }, null, 2)}\n`);
  process.stdout.write(`# recorded in ${values.json}\n`);
}
