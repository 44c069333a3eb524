#!/usr/bin/env node
// NAS Parallel Benchmarks kernels (examples/npb: IS, EP, CG, MG, FT, verified against NPB's official
// values) on each provider: each kernel is a `dapl run -n N --provider P` job, and its NPB result block
// gives the time and Mop/s. On a simulated provider the time is virtual and counts communication only
// (the kernels' arithmetic does not advance the clock), so it repeats to the digit; on tcp it is
// wall-clock. The MPI device and the provider's parameters come from the environment
// (DAPL_MPI_DEVICE=am, DAPL_IB_INLINE_BYTES=0 …), as for any dapl job.
//
//   node bench/npb.mjs [--providers ib,lapi,combuf] [--kernels is,ep,cg,mg,ft] [--class S] [-n 4] [--json FILE]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { benchOptions } from './lib/options.mjs';
import { benchRecord } from './lib/record.mjs';

const HELP = `usage: node bench/npb.mjs [options]

NPB kernels on each provider, a dapl job each; prints the time and Mop/s of each, and whether it
verified. Virtual time (communication only) on ib, lapi and combuf; wall clock on tcp.

  --providers LIST   comma-separated provider keys (default ib,lapi,combuf)
  --kernels LIST     comma-separated: is,ep,cg,mg,ft (default all)
  --class C          NPB problem class: S, W or A (default S)
  -n N               ranks (default 4; CG, MG and FT need a power of two)
  --json FILE        also write the figures as a record (bench/lib/record.mjs)
  -h, --help         this text`;

const KERNELS = ['is', 'ep', 'cg', 'mg', 'ft'];
const { values, check, integer } = benchOptions('npb', HELP, {
  providers: { type: 'string', default: 'ib,lapi,combuf' },
  kernels: { type: 'string', default: KERNELS.join(',') },
  class: { type: 'string', default: 'S' },
  ranks: { type: 'string', short: 'n', default: '4' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
});
check('kernels', (v) => v.split(',').every((k) => KERNELS.includes(k)), `list kernels of ${KERNELS.join(', ')}`);
check('class', (v) => ['S', 'W', 'A'].includes(v), 'be S, W or A');
const ranks = integer('ranks', 1);
const providers = values.providers.split(',').filter(Boolean);
const kernels = values.kernels.split(',');

const root = fileURLToPath(new URL('..', import.meta.url));
const dapl = join(root, 'packages', 'core', 'bin', 'dapl.js');
const simulated = (p) => !['tcp', 'shm'].includes(p);
const record = benchRecord('npb', { timeBase: providers.every(simulated) ? 'virtual' : 'wall' });
const field = (text, label) => new RegExp(`^ ${label} += +(.+)$`, 'm').exec(text)?.[1]?.trim();

const out = (s) => process.stdout.write(`${s}\n`);
out(`# NPB class ${values.class} on ${ranks} ranks (dapl.ts; virtual time counts communication only on the simulated providers)`);
out(`# ${'kernel'.padEnd(8)}${'provider'.padEnd(10)}${'time (s)'.padStart(12)}${'Mop/s'.padStart(14)}  verification`);
let failed = false;
for (const provider of providers) {
  for (const kernel of kernels) {
    const ran = spawnSync(process.execPath, [dapl, 'run', '-n', String(ranks), '--provider', provider, join(root, 'examples', 'npb', `${kernel}.mjs`), values.class], { cwd: root, encoding: 'utf8', env: process.env, maxBuffer: 64 << 20 });
    const mops = Number(field(ran.stdout, 'Mop/s total'));
    const seconds = Number(field(ran.stdout, 'Time in seconds'));
    const verified = field(ran.stdout, 'Verification');
    if (ran.status !== 0 || !Number.isFinite(mops) || verified !== 'SUCCESSFUL') {
      failed = true;
      process.stderr.write(`npb: ${kernel} on ${provider} failed (exit ${ran.status}, verification ${verified ?? 'none'}): ${ran.stderr.trim().split('\n').at(-1) ?? ''}\n`);
      continue;
    }
    out(`  ${kernel.toUpperCase().padEnd(8)}${provider.padEnd(10)}${seconds.toFixed(2).padStart(12)}${mops.toFixed(2).padStart(14)}  ${verified}`);
    // NPB prints the time to 0.01 s; Mop/s, to 6 or more digits, is the precise figure (time ∝ 1 / Mop/s).
    const test = `${kernel.toUpperCase()} class ${values.class}, ${ranks} ranks`;
    record.add({ test, provider, series: provider, value: mops, unit: 'Mop/s' });
  }
}
if (values.json !== undefined) record.write(values.json);
process.exit(failed ? 1 : 0);
