#!/usr/bin/env node
// Where an NAS kernel's communication time goes, collective by collective: the kernel (examples/npb)
// runs as a `dapl run` job on a simulated provider with every collective call timed on its rank's
// virtual clock (bench/lib/collective-timing.mjs, preloaded), and each call is printed across the
// ranks: when the first rank entered it, how long from then until the last rank left it, and how far
// apart the ranks entered it. The MPI device and the provider's parameters come from the
// environment (DAPL_MPI_DEVICE=am …), as for any dapl job.
//
//   node bench/npb-phases.mjs [--provider lapi] [--kernel is] [--class S] [-n 4] [--only allreduce,alltoallv]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TIMED_COLLECTIVES } from './lib/collective-timing.mjs';
import { benchOptions } from './lib/options.mjs';

const HELP = `usage: node bench/npb-phases.mjs [options]

One NPB kernel as a dapl job on a simulated provider, each collective call timed in virtual time;
prints a row per call (the k-th call of a collective on every rank): when the first rank entered
it, the span from then until the last rank left it, and the spread of the ranks' entries, in µs;
then each collective's count and total span.

  --provider P   ib, lapi or combuf (default lapi)
  --kernel K     is, ep, cg, mg or ft (default is)
  --class C      NPB problem class: S, W or A (default S)
  -n N           ranks (default 4; CG, MG and FT need a power of two)
  --only LIST    comma-separated collectives to print (default every one called)
  -h, --help     this text`;

const SIMULATED = ['ib', 'lapi', 'combuf'];
const KERNELS = ['is', 'ep', 'cg', 'mg', 'ft'];
const { values, check, integer } = benchOptions('npb-phases', HELP, {
  provider: { type: 'string', default: 'lapi' },
  kernel: { type: 'string', default: 'is' },
  class: { type: 'string', default: 'S' },
  ranks: { type: 'string', short: 'n', default: '4' },
  only: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
check('provider', (v) => SIMULATED.includes(v), `be a simulated provider (${SIMULATED.join(', ')})`);
check('kernel', (v) => KERNELS.includes(v), `be one of ${KERNELS.join(', ')}`);
check('class', (v) => ['S', 'W', 'A'].includes(v), 'be S, W or A');
check('only', (v) => v.split(',').every((c) => TIMED_COLLECTIVES.includes(c)), `list collectives of ${TIMED_COLLECTIVES.join(', ')}`);
const ranks = integer('ranks', 1);
const only = values.only?.split(',');

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'npb-phases-'));
const file = join(dir, 'calls.json');
let calls;
try {
  const preload = new URL('./lib/collective-timing.mjs', import.meta.url).href;
  const args = ['--import', preload, join(root, 'packages', 'core', 'bin', 'dapl.js'), 'run', '-n', String(ranks), '--provider', values.provider, join(root, 'examples', 'npb', `${values.kernel}.mjs`), values.class];
  const ran = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, DAPL_COLLECTIVE_TIMING: file }, maxBuffer: 64 << 20 });
  if (ran.status !== 0) {
    process.stderr.write(`npb-phases: the ${values.kernel.toUpperCase()} job exited with ${ran.status}\n${ran.stderr}`);
    process.exit(1);
  }
  calls = JSON.parse(readFileSync(file, 'utf8'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// The k-th call of a collective on every rank, in the order the first rank entered it.
const rows = new Map();
for (const c of calls) {
  const key = `${c.name}:${c.index}`;
  const row = rows.get(key) ?? { name: c.name, index: c.index, first: Infinity, lastStart: -Infinity, lastEnd: -Infinity, ranks: 0 };
  row.first = Math.min(row.first, c.start);
  row.lastStart = Math.max(row.lastStart, c.start);
  row.lastEnd = Math.max(row.lastEnd, c.end);
  row.ranks++;
  rows.set(key, row);
}
const ordered = [...rows.values()].filter((r) => only === undefined || only.includes(r.name)).sort((a, b) => a.first - b.first);

const out = (s) => process.stdout.write(`${s}\n`);
const us = (v) => v.toFixed(1).padStart(11);
out(`# NPB ${values.kernel.toUpperCase()} class ${values.class} on ${ranks} ranks, provider ${values.provider}, device ${process.env.DAPL_MPI_DEVICE ?? 'default'} (virtual time, µs)`);
out(`# ${'collective'.padEnd(14)}${'call'.padStart(5)}${'first in'.padStart(11)}${'span'.padStart(11)}${'spread in'.padStart(11)}`);
for (const r of ordered) out(`  ${r.name.padEnd(14)}${String(r.index + 1).padStart(5)}${us(r.first)}${us(r.lastEnd - r.first)}${us(r.lastStart - r.first)}`);
out('# collective     calls  total span');
const totals = new Map();
for (const r of ordered) {
  const t = totals.get(r.name) ?? { calls: 0, span: 0 };
  t.calls++;
  t.span += r.lastEnd - r.first;
  totals.set(r.name, t);
}
for (const [name, t] of totals) out(`  ${name.padEnd(14)}${String(t.calls).padStart(5)}${us(t.span)}`);
