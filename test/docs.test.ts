// The documentation runs as written (issue 35): every command of a ```sh block and every ```js run
// block in README.md, docs/, the package READMEs and bench/ is run and must exit as it says; every
// link points at a file of the repository; and the guide speaks of the product, not of how it was
// made (no round-of-work numbering, no "seed" names for the source papers).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './support/dapl-run.js';
import { linkResolves, links, scriptBlocks, shellCommands, userMarkdown } from './support/markdown-docs.js';

const COMMAND_TIMEOUT_MS = 180_000;
const files = userMarkdown(root);
const commands = files.flatMap((f) => shellCommands(root, f));
const scripts = files.flatMap((f) => scriptBlocks(root, f));

/** Settings from the developer's shell would change what a command prints. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DAPL_') || key.startsWith('PMI_')) delete env[key];
  return env;
}

function bash(command: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd: root, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 << 20, env: cleanEnvironment() }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: unknown }) | null;
      resolve({ code: failed === null ? 0 : typeof failed.code === 'number' ? failed.code : null, output: `${stdout}\n${stderr}`.trim().slice(-4000) });
    });
  });
}

describe('the documentation', () => {
  it('has commands and runnable blocks to check (the extraction finds them)', () => {
    expect(files).toContain('README.md');
    expect(commands.length).toBeGreaterThan(10);
    expect(scripts.length).toBeGreaterThan(2);
  });

  it.each(commands.map((c) => [`${c.file}:${c.line}`, c] as const))('%s: the command runs as written', { timeout: COMMAND_TIMEOUT_MS + 10_000 }, async (_where, c) => {
    const ran = await bash(c.command);
    expect(ran.code, `${c.command}\n${ran.output}`).toBe(c.expectedExit);
  });

  it.each(scripts.map((s) => [`${s.file}:${s.line}`, s] as const))('%s: the program runs as written', { timeout: COMMAND_TIMEOUT_MS + 10_000 }, async (where, s) => {
    const name = `.docs-${where.replace(/[^a-z0-9]+/gi, '-')}.mjs`;
    writeFileSync(join(root, name), s.code);
    try {
      const launcher = s.launcher === undefined ? 'node' : `node packages/core/dist/cli/main.js ${s.launcher.replace(/^dapl /, '')}`;
      const ran = await bash(`${launcher} ${name}`);
      expect(ran.code, `${where}\n${ran.output}`).toBe(0);
    } finally {
      rmSync(join(root, name), { force: true });
    }
  });

  it('docs/configuration.md is what `dapl info --markdown` prints (generated from the declared parameters)', { timeout: 60_000 }, async () => {
    const ran = await bash('node packages/core/dist/cli/main.js info --markdown');
    expect(ran.code, ran.output).toBe(0);
    const printed = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['packages/core/dist/cli/main.js', 'info', '--markdown'], { cwd: root, env: cleanEnvironment() }, (error, stdout) => (error === null ? resolve(stdout) : reject(error))),
    );
    expect(readFileSync(join(root, 'docs/configuration.md'), 'utf8'), 'run: npx dapl info --markdown > docs/configuration.md').toBe(printed);
  });

  it('docs/performance.md, its plots and the README figures are what bench/report.mjs makes of bench/results/', { timeout: 120_000 }, async () => {
    const ran = await bash('node bench/report.mjs --check');
    expect(ran.code, ran.output).toBe(0);
  });

  it('links only to files of the repository', () => {
    const broken = files.flatMap((f) => links(root, f)).filter((l) => !linkResolves(root, l));
    expect(broken.map((l) => `${l.file}:${l.line} → ${l.target}`)).toEqual([]);
  });

  it('speaks of the product as it is: no rounds of work, no "seed N" names', () => {
    const benchSources = readdirSync(join(root, 'bench'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.mjs') || f.endsWith('.ts'))
      .map((f) => join('bench', f));
    const found: string[] = [];
    for (const file of [...files, ...benchSources]) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((text, i) => {
          if (/\bsessions?\b/i.test(text) || /\bseeds? ?0\d\d\b/i.test(text)) found.push(`${file}:${i + 1}: ${text.trim().slice(0, 100)}`);
        });
    }
    expect(found).toEqual([]);
  });
});
