// The user-facing Markdown of the repository, and what the docs test runs and checks in it: the
// shell commands of ```sh blocks, the JavaScript of ```js run blocks, and every relative link.
//
// Conventions (docs/contributing-docs.md):
// - ```sh — every line that is not blank or a comment is a command, run from the repository root
//   with bash. A command ending in `# exit N` must exit with N; any other must exit 0.
// - ```sh norun — shown, never run (installing, the test suite itself, other hosts' launchers).
// - ```js run — written to a scratch .mjs file at the repository root (so `@dapl/*` resolves) and
//   run with node; ```js run="dapl run -n 2 --provider ib" runs it under that launcher instead.
// - Other blocks (```ts, ```json, plain ```) are illustrations.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface ShellCommand {
  readonly file: string;
  readonly line: number;
  readonly command: string;
  readonly expectedExit: number;
}

export interface ScriptBlock {
  readonly file: string;
  readonly line: number;
  readonly code: string;
  /** The launcher line it runs under (`dapl run -n 2 …`), or undefined for plain node. */
  readonly launcher: string | undefined;
}

export interface MarkdownLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
}

/** README.md, docs/ (without the generated API reference), every package README and bench/'s Markdown. */
export function userMarkdown(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (path === join('docs', 'api') || name === 'node_modules' || name === 'dist') continue;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  for (const dir of ['docs', 'bench']) walk(dir);
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const readme = join('packages', pkg, 'README.md');
    try {
      statSync(join(root, readme));
      files.push(readme);
    } catch {
      // a package without a README has nothing to check
    }
  }
  return files;
}

interface Fence {
  readonly info: string;
  readonly line: number;
  readonly body: string[];
}

function fences(text: string): Fence[] {
  const out: Fence[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j]);
    out.push({ info: open[2].trim(), line: i + 1, body });
    i = j;
  }
  return out;
}

/** The shell commands of `file`'s ```sh blocks (not ```sh norun). */
export function shellCommands(root: string, file: string): ShellCommand[] {
  const out: ShellCommand[] = [];
  for (const fence of fences(readFileSync(join(root, file), 'utf8'))) {
    const [language, ...flags] = fence.info.split(/\s+/);
    if ((language !== 'sh' && language !== 'bash') || flags.includes('norun')) continue;
    fence.body.forEach((text, k) => {
      const trimmed = text.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return;
      const exit = /#\s*exit\s+(\d+)\s*$/.exec(trimmed);
      out.push({ file, line: fence.line + 1 + k, command: trimmed, expectedExit: exit === null ? 0 : Number(exit[1]) });
    });
  }
  return out;
}

/** The ```js run blocks of `file`. */
export function scriptBlocks(root: string, file: string): ScriptBlock[] {
  const out: ScriptBlock[] = [];
  for (const fence of fences(readFileSync(join(root, file), 'utf8'))) {
    const run = /^(?:js|javascript)\s+run(?:="([^"]*)")?\s*$/.exec(fence.info);
    if (run === null) continue;
    out.push({ file, line: fence.line, code: fence.body.join('\n') + '\n', launcher: run[1] });
  }
  return out;
}

/** Every Markdown link and image of `file` outside code fences and inline code. */
export function links(root: string, file: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  let inFence = false;
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) inFence = !inFence;
      if (inFence) return;
      const prose = text.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ file, line: i + 1, target: m[1] });
    });
  return out;
}

/** Whether a link's target is a file or folder inside the repository (anchors ignored). */
export function linkResolves(root: string, link: MarkdownLink): boolean {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return false; // http:, mailto:, file: … leave the repository
  if (link.target.startsWith('#')) return true;
  const path = decodeURIComponent(link.target.split('#')[0]);
  const resolved = join(root, link.file, '..', path);
  if (relative(root, resolved).startsWith('..')) return false;
  try {
    statSync(resolved);
    return true;
  } catch {
    return false;
  }
}
