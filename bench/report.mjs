#!/usr/bin/env node
// The benchmark records in bench/results/ (each written by a benchmark's --json) turned into what
// users read: docs/performance.md (every record's tables, with its date, commit, command and host),
// the SVG plots in docs/plots/ (latency and bandwidth against message size, one curve per provider
// and series, drawn with vega-lite), and the figures table of README.md (between its
// `<!-- figures:begin -->` and `<!-- figures:end -->` markers). --check writes nothing and exits 1
// when any of them differs from what the records give (test/docs.test.ts runs it).
//
//   node bench/report.mjs [--check]
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchOptions } from './lib/options.mjs';
import { HEADLINES, renderPerformancePage, renderReadmeTable } from './lib/report-pages.mjs';
import { plotSpecs, renderSvg } from './lib/report-plots.mjs';

const HELP = `usage: node bench/report.mjs [--check]

Regenerates docs/performance.md, docs/plots/*.svg and README.md's figures table from the records in
bench/results/*.json. --check writes nothing and exits 1 naming each file that is out of date.`;
const { values } = benchOptions('report', HELP, { check: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } });

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
const records = readdirSync(resultsDir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: `bench/results/${f}`, ...JSON.parse(readFileSync(join(resultsDir, f), 'utf8')) }));

const outputs = new Map();
outputs.set('docs/performance.md', renderPerformancePage(records));
for (const plot of plotSpecs(records)) outputs.set(`docs/plots/${plot.name}.svg`, await renderSvg(plot.spec));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const begin = '<!-- figures:begin -->';
const end = '<!-- figures:end -->';
const from = readme.indexOf(begin);
const to = readme.indexOf(end);
if (from < 0 || to < from) {
  process.stderr.write(`report: README.md has no ${begin} … ${end} block\n`);
  process.exit(2);
}
outputs.set('README.md', `${readme.slice(0, from + begin.length)}\n${renderReadmeTable(records, HEADLINES)}${readme.slice(to)}`);

const stale = [];
for (const [path, text] of outputs) {
  const full = join(root, path);
  const current = existsSync(full) ? readFileSync(full, 'utf8') : undefined;
  if (current === text) continue;
  stale.push(path);
  if (!values.check) {
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text);
  }
}
// Plots no record draws any more.
const plotsDir = join(root, 'docs', 'plots');
for (const f of existsSync(plotsDir) ? readdirSync(plotsDir) : []) {
  if (outputs.has(`docs/plots/${f}`)) continue;
  stale.push(`docs/plots/${f} (no record draws it)`);
  if (!values.check) rmSync(join(plotsDir, f));
}
if (values.check && stale.length > 0) {
  process.stderr.write(`report: out of date (run node bench/report.mjs): ${stale.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(values.check ? 'report: up to date\n' : `report: ${stale.length === 0 ? 'nothing changed' : `wrote ${stale.join(', ')}`}\n`);
