#!/usr/bin/env node
// The five source papers' headline results regenerated beside the papers' own numbers. Each paper's
// results, with the page, figure or table they come from, are in bench/reproduce/papers/<paper>.json;
// this runs the benchmarks they need (each once per paper: virtual time on the simulated machines,
// real tcp for MPICH on MP_Lite), computes dapl.ts's figure for each, and prints
// result | paper | dapl.ts | ratio | verdict. A direction verdict says whether the comparison the paper
// makes holds here; a magnitude verdict, given only where the model claims the magnitude, whether
// dapl.ts's figure is within 15 % of the paper's.
//
//   node bench/reproduce/reproduce.mjs <paper>|all [--json] [--plot DIR] [--results ID,ID]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchesOf, judge, MAGNITUDE_TOLERANCE, PAPERS, summarise } from './evaluate.mjs';
import { runBench } from './run-benches.mjs';
import { writePlots } from './plots.mjs';

const HELP = `usage: node bench/reproduce/reproduce.mjs <paper>|all [--json] [--plot DIR] [--results ID,ID]

Runs the benchmarks behind each headline result of a source paper and prints them beside the
paper's numbers: result | paper | dapl.ts | ratio | verdict, then a summary per paper and for all.
Papers: ${PAPERS.join(', ')}.

  --json           print one JSON array, a row per result: { paper, result, paperValue, daplValue,
                   unit, ratio, directionHolds, magnitudeClaimed, ... }
  --plot DIR       also write SVG figures into DIR
  --results IDS    only these results (comma-separated ids; the benchmarks they need run)
  -h, --help       this text

Exit status: 0 done (whatever the verdicts), 2 usage error, 1 a failure of the reproduction itself.`;

const root = fileURLToPath(new URL('../..', import.meta.url));
let values;
let positionals;
try {
  ({ values, positionals } = parseArgs({
    options: { json: { type: 'boolean', default: false }, plot: { type: 'string' }, results: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
  }));
} catch (error) {
  process.stderr.write(`reproduce: ${error.message}; see --help\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
if (positionals.length !== 1 || !(positionals[0] === 'all' || PAPERS.includes(positionals[0]))) {
  process.stderr.write(`reproduce: ${positionals.length === 0 ? 'a paper is required' : positionals.length > 1 ? 'give one paper' : `unknown paper '${positionals[0]}'`}; papers: ${PAPERS.join(', ')}, or all\n`);
  process.exit(2);
}
const papers = positionals[0] === 'all' ? PAPERS : [positionals[0]];
const wanted = values.results === undefined ? undefined : new Set(values.results.split(',').filter(Boolean));
const log = (line) => process.stderr.write(`${line}\n`);

const allJudged = [];
const out = [];
for (const name of papers) {
  const paper = JSON.parse(readFileSync(join(root, 'bench', 'reproduce', 'papers', `${name}.json`), 'utf8'));
  const results = paper.results.filter((r) => wanted === undefined || wanted.has(r.id));
  if (results.length === 0) continue;
  const needed = new Set();
  for (const r of results) {
    benchesOf(r.dapl, needed);
    benchesOf(r.claim?.right, needed);
  }
  const rows = new Map();
  const failures = new Map();
  const started = Date.now();
  for (const id of needed) {
    const spec = paper.benchmarks[id];
    if (spec === undefined) throw new Error(`${name}.json: a result reads benchmark '${id}', which "benchmarks" does not define`);
    const got = await runBench(root, id, spec, log);
    if (got.error !== undefined) {
      failures.set(id, got.error);
      log(`reproduce: ${id}: ${got.error}`);
    } else rows.set(id, got.rows);
  }
  const judged = results.map((r) => judge(name, r, rows, failures));
  allJudged.push(...judged);
  if (!values.json) out.push(...table(paper, judged, (Date.now() - started) / 1000));
  if (values.plot !== undefined) for (const path of await writePlots(values.plot, name, judged, rows)) log(`reproduce: wrote ${path}`);
}

if (values.json) {
  process.stdout.write(`${JSON.stringify(allJudged, null, 2)}\n`);
} else {
  if (papers.length > 1) out.push(summaryLine('all papers', summarise(allJudged)));
  process.stdout.write(`${out.join('\n')}\n`);
}

function table(paper, judged, seconds) {
  const lines = [`# ${paper.paper}: ${paper.title} (${paper.authors})`, `# machine: ${paper.machine}`];
  const head = ['result', 'paper', 'dapl.ts', 'ratio', 'verdict'];
  const body = judged.map((j) => [j.result, figure(j.paperValue, j.unit), figure(j.daplValue, j.unit), j.ratio === null ? '-' : `${j.ratio.toFixed(2)}x`, verdict(j)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const row = (cells) => cells.map((c, i) => (i === 4 ? c : i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  lines.push(row(head), ...body.map(row));
  for (const j of judged) if (j.claim !== null || j.note !== null) lines.push(`#  ${j.result}: ${j.title}${j.claim === null ? '' : `; claim: ${j.claim}`}${j.note === null ? '' : `; ${j.note}`}`);
  lines.push(summaryLine(paper.paper, summarise(judged), seconds), '');
  return lines;
}

function figure(v, unit) {
  if (v === null) return '-';
  const digits = Math.abs(v) >= 100 ? 1 : Math.abs(v) >= 10 ? 2 : 3;
  return `${v.toFixed(digits)} ${unit}`;
}

function verdict(j) {
  if (j.daplValue === null) return 'not measured';
  const parts = [];
  if (j.directionHolds !== null) parts.push(j.directionHolds ? 'direction holds' : 'direction FAILS');
  if (j.magnitudeWithin !== null) parts.push(j.magnitudeWithin ? `within ${MAGNITUDE_TOLERANCE * 100} %` : `MISS (${j.ratio.toFixed(2)}x)`);
  if (parts.length === 0) parts.push(j.paperValue === null ? 'shown' : 'shown (no magnitude claimed)');
  return parts.join(', ');
}

function summaryLine(label, s, seconds) {
  return `# summary ${label}: directions ${s.directionsHeld}/${s.directionsClaimed} hold, magnitudes ${s.magnitudesWithin}/${s.magnitudesClaimed} within ${MAGNITUDE_TOLERANCE * 100} %, ${s.notMeasured} of ${s.results} results not measured${seconds === undefined ? '' : ` (${seconds.toFixed(0)} s)`}`;
}
