// Runs the benchmarks a paper's results need, each once, and turns what each prints into record rows
// ({ test, provider, size, series, value, unit }, bench/lib/record.mjs): from its --json record, or
// from its printed table where it writes none (bench/netpipe.mjs, bench/osu-rma.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `spec` ({ script, args, env, record, parse }) from `root`; resolves to { rows } or
 * { error } (a message: the script is missing, it exited non-zero, or printed nothing to read).
 */
export async function runBench(root, id, spec, log) {
  const script = join(root, spec.script);
  if (!existsSync(script)) return { error: `${spec.script} does not exist` };
  const dir = mkdtempSync(join(tmpdir(), 'dapl-reproduce-'));
  const recordFile = join(dir, `${id}.json`);
  const args = [script, ...(spec.args ?? []), ...(spec.record === true ? ['--json', recordFile] : [])];
  const env = { ...process.env, ...(spec.env ?? {}) };
  log(`reproduce: ${id}: ${Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v} `).join('')}node ${[spec.script, ...(spec.args ?? [])].join(' ')}`);
  try {
    const { code, stdout, stderr } = await run(process.execPath, args, { cwd: root, env });
    if (code !== 0) return { error: `${spec.script} exited with ${code}: ${lastLine(stderr) ?? lastLine(stdout) ?? ''}` };
    if (spec.record === true) return { rows: JSON.parse(readFileSync(recordFile, 'utf8')).rows };
    if (spec.parse === 'netpipe') return nonEmpty(spec, parseNetpipe(stdout));
    if (spec.parse === 'osu') return nonEmpty(spec, parseOsu(stdout));
    return { error: `${id}: neither "record" nor a known "parse"` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function nonEmpty(spec, rows) {
  return rows.length > 0 ? { rows } : { error: `${spec.script} printed no table to read` };
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function lastLine(text) {
  return text.trim().split('\n').filter(Boolean).at(-1);
}

/**
 * bench/netpipe.mjs's tables: a header `#     bytes  <name> Mbps  usec ...`, then a row per size of
 * Mbps and µs per column; each column's Mbps becomes a `throughput` row of series <name>. Then,
 * from 1 MiB, the medians of the paired ratios over raw TCP: a header of names 13 characters wide
 * after `#     bytes`, a row per size; each becomes a `paired-ratio` row of series <name>.
 */
export function parseNetpipe(text) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^#\s+bytes\s.*Mbps/.test(l));
  if (at < 0) return [];
  const names = lines[at].replace(/^#\s+bytes\s+/, '').split(/\s+Mbps\s+usec\s*/).map((s) => s.trim()).filter(Boolean);
  const rows = [];
  let i = at + 1;
  for (; i < lines.length && !lines[i].startsWith('#'); i++) {
    const cells = lines[i].trim().split(/\s+/);
    if (cells.length !== 1 + 2 * names.length || !/^\d+$/.test(cells[0])) continue;
    names.forEach((series, c) => rows.push({ test: 'throughput', provider: 'tcp', size: Number(cells[0]), series, value: Number(cells[1 + 2 * c]), unit: 'Mbps' }));
  }
  if (!/^# throughput \/ raw TCP/.test(lines[i] ?? '')) return rows;
  const header = lines[i + 1] ?? '';
  const widths = /^#\s+bytes /.exec(header);
  if (widths === null) return rows;
  const paired = [];
  for (let from = widths[0].length; from < header.length; from += 14) paired.push(header.slice(from, from + 13).trim());
  for (i += 2; i < lines.length && !lines[i].startsWith('#'); i++) {
    const cells = lines[i].trim().split(/\s+/);
    if (cells.length !== 1 + paired.length || !/^\d+$/.test(cells[0])) continue;
    paired.forEach((series, c) => rows.push({ test: 'paired-ratio', provider: 'tcp', size: Number(cells[0]), series, value: Number(cells[1 + c]), unit: 'ratio' }));
  }
  return rows;
}

/**
 * OSU-format output (bench/osu-rma.mjs): `# OSU MPI_<Title> (… provider <key> …)`, then rows of
 * size, MPI figure, DAT figure, ratio; each row becomes an MPI and a DAT row of test <Title>.
 */
export function parseOsu(text) {
  const rows = [];
  let test;
  let provider = 'unknown';
  let unit = 'us';
  for (const line of text.split('\n')) {
    const title = /^# OSU MPI_(.+?) \(.*provider (\w[\w-]*)/.exec(line);
    if (title !== null) {
      [, test, provider] = title;
      unit = /Bandwidth/.test(test) ? 'MB/s' : 'us';
      continue;
    }
    const cells = line.trim().split(/\s+/);
    if (test === undefined || line.startsWith('#') || cells.length !== 4 || !/^\d+$/.test(cells[0])) continue;
    const size = Number(cells[0]);
    rows.push({ test, provider, size, series: 'MPI', value: Number(cells[1]), unit });
    rows.push({ test, provider, size, series: 'DAT', value: Number(cells[2]), unit });
  }
  return rows;
}
