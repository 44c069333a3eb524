// `dapl reproduce` (bench/reproduce/reproduce.mjs): the papers' data files are complete, a subset of
// the reproduction gives the same virtual-time figures on two runs, its --json rows are well formed,
// and a paper it does not know is a usage error. And the hardware models it rests on: every
// parameter of each provider's model.ts carries a citation, or says it is not from the papers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeRun, root } from './support/dapl-run.js';

const SCRIPT = 'bench/reproduce/reproduce.mjs';
const PAPERS = ['mpi-lapi', 'fmpl', 'mpich-mplite', 'mpi2-rma-lapi', 'mvapich2-udapl'];
const JOB_TIMEOUT = 240_000;

interface Row {
  paper: string;
  result: string;
  paperValue: number | null;
  daplValue: number | null;
  unit: string;
  ratio: number | null;
  directionHolds: boolean | null;
  magnitudeClaimed: boolean;
}

interface Expr {
  bench?: string;
  op?: string;
  of?: Expr[];
}

function benchesOf(expr: Expr | number | null | undefined, into: Set<string>): Set<string> {
  if (expr === null || expr === undefined || typeof expr === 'number') return into;
  if (expr.bench !== undefined) into.add(expr.bench);
  for (const part of expr.of ?? []) benchesOf(part, into);
  return into;
}

describe('the papers\' data files', () => {
  it('are the papers the script and the CLI offer, no more, no fewer', async () => {
    const files = readdirSync(join(root, 'bench/reproduce/papers')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    expect([...files].sort()).toEqual([...PAPERS].sort());
    const { PAPERS: scriptPapers } = (await import(join(root, 'bench/reproduce/evaluate.mjs'))) as { PAPERS: string[] };
    expect(scriptPapers).toEqual(PAPERS);
    const { REPRODUCIBLE_PAPERS } = await import('../packages/core/src/cli/reproduce-command.js');
    expect(REPRODUCIBLE_PAPERS).toEqual(PAPERS);
  });

  it.each(PAPERS)('%s: every result has an id, a source, and reads only benchmarks the file defines', (paper) => {
    const data = JSON.parse(readFileSync(join(root, 'bench/reproduce/papers', `${paper}.json`), 'utf8')) as {
      paper: string;
      benchmarks: Record<string, { script: string }>;
      results: { id: string; source: string; unit: string; paperValue: number | null; dapl: Expr | null; claim?: { right?: Expr | number }; magnitudeClaimed: boolean; notMeasured?: string }[];
    };
    expect(data.paper).toBe(paper);
    const ids = data.results.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of data.results) {
      expect(r.source.length, r.id).toBeGreaterThan(5);
      expect(typeof r.unit, r.id).toBe('string');
      expect(typeof r.magnitudeClaimed, r.id).toBe('boolean');
      if (r.magnitudeClaimed) expect(r.paperValue, `${r.id}: a magnitude claimed needs the paper's number`).not.toBeNull();
      // An absolute figure the paper prints but the model does not claim (another library's, or measured
      // under other conditions) says so in its source, so a miss cannot be dropped silently.
      if (!r.magnitudeClaimed && r.paperValue !== null && !['%', 'ratio'].includes(r.unit)) {
        expect(r.source, `${r.id}: why its magnitude is not claimed`).toMatch(/no magnitude is claimed|only the direction is claimed/);
      }
      if (r.dapl === null) expect(r.notMeasured, `${r.id}: what is not measured says why`).toBeTruthy();
      for (const bench of benchesOf(r.claim?.right, benchesOf(r.dapl, new Set()))) expect(Object.keys(data.benchmarks), r.id).toContain(bench);
    }
  });
});

describe('bench/reproduce/reproduce.mjs', () => {
  it('gives identical virtual-time figures on two runs, in well-formed --json rows', async () => {
    const args = [SCRIPT, 'mpi2-rma-lapi', '--json', '--results', 'two-sided-latency-windows-open,two-sided-bandwidth-windows-open,put-latency-fence'];
    const first = await nodeRun(args, {}, JOB_TIMEOUT);
    expect(first.code, first.stderr).toBe(0);
    const second = await nodeRun(args, {}, JOB_TIMEOUT);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const rows = JSON.parse(first.stdout) as Row[];
    expect(rows.map((r) => r.result)).toEqual(['two-sided-latency-windows-open', 'two-sided-bandwidth-windows-open', 'put-latency-fence']);
    for (const row of rows) {
      expect(row.paper).toBe('mpi2-rma-lapi');
      expect(typeof row.unit).toBe('string');
      expect(typeof row.daplValue, row.result).toBe('number');
      expect(row.paperValue === null || typeof row.paperValue === 'number').toBe(true);
      expect(row.ratio).toBe(row.paperValue === null ? null : row.daplValue! / row.paperValue);
      expect([true, false, null]).toContain(row.directionHolds);
      expect(typeof row.magnitudeClaimed).toBe('boolean');
    }
    // The patent claims two-sided figures unaffected by open windows; that is a direction, judged.
    expect(rows[0]!.directionHolds).not.toBeNull();
    expect(rows[2]!.directionHolds).toBeNull();
  }, JOB_TIMEOUT);

  it('prints a table per paper with a summary line', async () => {
    const ran = await nodeRun([SCRIPT, 'mpi2-rma-lapi', '--results', 'put-latency-fence'], {}, JOB_TIMEOUT);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^result +paper +dapl\.ts +ratio +verdict$/m);
    expect(ran.stdout).toMatch(/^put-latency-fence +- +[\d.]+ us +- +shown$/m);
    expect(ran.stdout).toMatch(/^# summary mpi2-rma-lapi: directions 0\/0 hold, magnitudes 0\/0 within 15 %, 0 of 1 results not measured/m);
  }, JOB_TIMEOUT);

  it('refuses a paper it does not know with exit 2, naming the papers', async () => {
    const script = await nodeRun([SCRIPT, 'no-such-paper']);
    expect(script.code).toBe(2);
    expect(script.stderr).toContain(PAPERS.join(', '));
    const cli = await nodeRun(['packages/core/dist/cli/main.js', 'reproduce', 'no-such-paper']);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`unknown paper "no-such-paper"; papers: ${PAPERS.join(', ')}, or all`);
    const none = await nodeRun(['packages/core/dist/cli/main.js', 'reproduce']);
    expect(none.code).toBe(2);
  });
});

describe('the benchmarks added for the comparisons', () => {
  const figure = (text: string, label: string): number => Number(new RegExp(`^${label} +([\\d.]+) us`, 'm').exec(text)?.[1]);

  it('bench/mpi-outstanding.mjs: with mpi.matching=linear, 200 receives outstanding cost each posting a scan; indexed, nothing', async () => {
    const indexed = await nodeRun(['bench/mpi-outstanding.mjs', '--provider', 'combuf'], {}, JOB_TIMEOUT);
    const linear = await nodeRun(['bench/mpi-outstanding.mjs', '--provider', 'combuf'], { DAPL_MPI_MATCHING: 'linear' }, JOB_TIMEOUT);
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(linear.code, linear.stderr).toBe(0);
    const latency = '4-byte one-way latency, 200 receives outstanding';
    const gap = 'gap between consecutive irecv calls';
    expect(figure(linear.stdout, latency)).toBeGreaterThan(figure(indexed.stdout, latency));
    expect(figure(linear.stdout, gap)).toBeGreaterThan(10 * figure(indexed.stdout, gap));
  }, JOB_TIMEOUT);

  it('bench/npb.mjs refuses a kernel it does not have, and a class', async () => {
    const kernel = await nodeRun(['bench/npb.mjs', '--kernels', 'bt']);
    expect(kernel.code).toBe(2);
    expect(kernel.stderr).toContain('--kernels must list kernels of is, ep, cg, mg, ft');
    const cls = await nodeRun(['bench/npb.mjs', '--class', 'Z']);
    expect(cls.code).toBe(2);
  });
});

/**
 * The parameters of a model object (`export const X_MODEL = { … }`): each property at the object's
 * top level with the comment just above it ('' when none).
 */
function modelParameters(source: string): { name: string; comment: string }[] {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => /^export const \w+_MODEL = \{/.test(l));
  const end = lines.findIndex((l, i) => i > start && /^\} as const;|^\};/.test(l));
  const out: { name: string; comment: string }[] = [];
  for (let i = start + 1; i < end; i++) {
    const property = /^ {2}(\w+):/.exec(lines[i]!);
    if (property === null) continue;
    let j = i - 1;
    const comment: string[] = [];
    if (/\*\/\s*$/.test(lines[j]!)) {
      while (j > start && !/^\s*\/\*\*/.test(lines[j]!)) comment.unshift(lines[j--]!);
      comment.unshift(lines[j]!);
    }
    out.push({ name: property[1]!, comment: comment.join('\n') });
  }
  return out;
}

describe('the providers\' hardware models', () => {
  const models = readdirSync(join(root, 'packages'))
    .filter((p) => p.startsWith('provider-'))
    .flatMap((p) => {
      const found: string[] = [];
      const walk = (dir: string): void => {
        for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
          if (entry.isDirectory()) walk(join(dir, entry.name));
          else if (entry.name === 'model.ts') found.push(join(dir, entry.name));
        }
      };
      walk(join('packages', p, 'src'));
      return found;
    });

  it('there are model.ts files to check', () => {
    expect(models.length).toBeGreaterThanOrEqual(3);
  });

  it.each(models)('%s: every parameter carries a citation or says it is not from the papers', (file) => {
    const parameters = modelParameters(readFileSync(join(root, file), 'utf8'));
    expect(parameters.length).toBeGreaterThan(0);
    // A citation names its source (authors "et al.", a section "§", a specification's section such as
    // "IBA 9.7.5.2.8", a datasheet or article in quotes);
    // a figure with none says so ("Not from the papers"), so no value passes as documented when it is not.
    const cited = /et al\.|§|"[^"]+"|IBA \d+(\.\d+)+|Not from the papers|not from the papers/;
    const uncited = parameters.filter((p) => !cited.test(p.comment)).map((p) => p.name);
    expect(uncited, `${file}: parameters without a citation comment`).toEqual([]);
  });
});
