import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode, UsageError, type CliCommand, type CliIo } from './cli-types.js';

/** The source papers `dapl reproduce` knows, as bench/reproduce/papers/<name>.json names them. */
export const REPRODUCIBLE_PAPERS: readonly string[] = ['mpi-lapi', 'fmpl', 'mpich-mplite', 'mpi2-rma-lapi', 'mvapich2-udapl'];

const SCRIPT = join('bench', 'reproduce', 'reproduce.mjs');

/**
 * The reproduction script: it runs the repository's benchmarks, so it lives in the checkout, not in
 * the package. Looked for from this module (packages/core/dist/cli in a checkout), then from the
 * working directory.
 */
function findScript(cwd: string): string | undefined {
  const fromModule = fileURLToPath(new URL(`../../../../${SCRIPT.split('\\').join('/')}`, import.meta.url));
  return [fromModule, join(cwd, SCRIPT)].find((path) => existsSync(path));
}

/** `dapl reproduce <paper>|all`: spawns bench/reproduce/reproduce.mjs from the checkout, its output passed through. */
export const reproduceCommand: CliCommand = {
  name: 'reproduce',
  summary: "Regenerate a source paper's headline results beside the paper's numbers",
  usage: `dapl reproduce <${REPRODUCIBLE_PAPERS.join('|')}|all> [--json] [--plot DIR] [--results IDS]`,
  description: [
    'Runs the benchmarks behind each headline result of the paper (virtual time on the simulated',
    'machines; real tcp for MPICH on MP_Lite) and prints, per paper, result | paper | dapl.ts | ratio |',
    'verdict: whether the direction the paper claims holds, and whether the magnitude is within 15 %',
    "where the model claims it; then a summary line per paper and for all. The results and the paper's",
    'numbers, with the page or figure each comes from, are in bench/reproduce/papers/<paper>.json.',
    'Needs the dapl.ts repository checkout (its bench/ directory).',
    '',
    'Exit status: 0 done (whatever the verdicts), 2 usage error (e.g. an unknown paper), 1 failure.',
  ].join('\n'),
  options: [
    { name: 'json', type: 'boolean', help: 'Print one JSON array, a row per result' },
    { name: 'plot', type: 'string', valueName: 'DIR', help: 'Also write SVG figures into DIR' },
    { name: 'results', type: 'string', valueName: 'IDS', help: 'Only these results (comma-separated ids)' },
  ],
  positionals: ['paper'],
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? `a paper is required: ${REPRODUCIBLE_PAPERS.join(', ')}, or all` : 'give one paper', 'reproduce');
    const paper = positionals[0]!;
    if (paper !== 'all' && !REPRODUCIBLE_PAPERS.includes(paper)) {
      throw new UsageError(`unknown paper "${paper}"; papers: ${REPRODUCIBLE_PAPERS.join(', ')}, or all`, 'reproduce');
    }
    const script = findScript(io.cwd);
    if (script === undefined) {
      io.stderr.write(`dapl reproduce: ${SCRIPT} not found: run it from the dapl.ts repository checkout\n`);
      return ExitCode.FAILURE;
    }
    const args = [script, paper];
    if (values.json === true) args.push('--json');
    if (typeof values.plot === 'string') args.push('--plot', values.plot);
    if (typeof values.results === 'string') args.push('--results', values.results);
    return runScript(args, io);
  },
};

/** Runs node with `args`, its output passed through to `io`; resolves to its exit code. */
function runScript(args: readonly string[], io: CliIo): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: io.cwd, env: io.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => io.stdout.write(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => io.stderr.write(chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? ExitCode.FAILURE));
  });
}
