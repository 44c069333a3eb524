// A benchmark's results as a JSON record (`--json FILE`): what ran (benchmark, command, commit,
// date), where (host facts), on what time base, and the figures as rows — one value of one series
// (MPI, DAT, raw, the paper, a ratio …) of one test at one message size on one provider.
// bench/report.mjs turns the records in bench/results/ into docs/performance.md and its plots.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function git(args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/** The command line that reproduces this run, from the repository root. */
export function commandLine(argv = process.argv) {
  const script = relative(root, argv[1] ?? '');
  return ['node', script, ...argv.slice(2)].map((a) => (/^[\w./:=,@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ');
}

/**
 * A record under construction. `add({ test, provider, size, series, value, unit })` adds a figure;
 * `write(path)` stamps it (date, commit, host) and writes it. `timeBase` is 'virtual' for a
 * simulated provider (the figures repeat to the digit) or 'wall'.
 */
export function benchRecord(benchmark, { timeBase, command = commandLine(), notes = [] } = {}) {
  const rows = [];
  return {
    add(row) {
      for (const key of ['test', 'provider', 'series', 'unit']) if (typeof row[key] !== 'string') throw new TypeError(`record row: ${key} must be a string`);
      if (!Number.isFinite(row.value)) throw new TypeError(`record row ${row.test}/${row.series}: value must be a finite number, got ${row.value}`);
      rows.push({ test: row.test, provider: row.provider, size: row.size ?? null, series: row.series, value: row.value, unit: row.unit });
    },
    get rows() {
      return rows;
    },
    write(path) {
      // The records themselves do not count: writing one must not make the next one's tree dirty.
      const status = git(['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results']);
      const record = {
        benchmark,
        date: new Date().toISOString(),
        commit: git(['rev-parse', '--short=12', 'HEAD']) ?? 'unknown',
        dirty: status === undefined ? null : status !== '',
        command,
        timeBase,
        host: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform },
        notes,
        rows,
      };
      writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
    },
  };
}
