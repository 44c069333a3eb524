import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `dapl run --in-process` as users run it: the built CLI in a child process, where uncaught errors
// in a rank's callbacks reach the process's own handlers (in vitest they would reach vitest's).
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures', 'in-process');
const bin = join(here, '..', 'dist', 'cli', 'main.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('DAPL_') && !k.startsWith('PMI_')) env[k] = v;
  return env;
}

function dapl(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: fixtures, env: cleanEnv(), timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const sortedLines = (text: string) => text.split('\n').filter((l) => l !== '').sort();
const launcherLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('dapl run: '));

describe('dapl run --in-process', () => {
  it('an error thrown in a timer of a rank fails that rank (exit 1), not the launcher', async () => {
    const r = await dapl(['run', '--in-process', '-n', '3', '--config', 'dapl.config.json', 'misbehaves.mjs', 'throw-later']);
    expect(r.code).toBe(1);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 exited with code 1 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
    expect(r.stderr).toContain('Error: rank 1 fails in a timer');
  });

  it('a rejection nobody handles in a rank fails that rank (exit 1); --tag-output tags its error', async () => {
    const r = await dapl(['run', '--in-process', '-n', '2', '--tag-output', '--config', 'dapl.config.json', 'misbehaves.mjs', 'reject-later']);
    expect(r.code).toBe(1);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 exited with code 1 after \d+\.\d\d s; stopping the other rank$/)]);
    expect(r.stderr).toContain('[1] Error: rank 1 rejects in a timer');
  });

  it('process.exit(3) in a rank: dapl run exits 3', async () => {
    const r = await dapl(['run', '--in-process', '-n', '3', '--config', 'dapl.config.json', 'misbehaves.mjs', 'exit']);
    expect(r.code).toBe(3);
    expect(launcherLines(r.stderr)).toEqual([expect.stringMatching(/^dapl run: rank 1 exited with code 3 after \d+\.\d\d s; stopping the other 2 ranks$/)]);
  });

  it('--timeout ends a job that hangs: exit 124', async () => {
    const r = await dapl(['run', '--in-process', '-n', '2', '--timeout', '0.3', '--config', 'dapl.config.json', 'misbehaves.mjs', 'hang']);
    expect(r.code).toBe(124);
    const [first, ...report] = launcherLines(r.stderr);
    expect(first).toBe('dapl run: the job did not finish within --timeout 0.3 s; stopping the 2 running ranks');
    // What each rank waits in, wherever a loaded host let it get by then.
    expect(report).toHaveLength(2);
    report.forEach((line, rank) => expect(line).toMatch(new RegExp(`^dapl run: rank ${rank} (waits in runtime\\.barrier\\(\\) for \\d+\\.\\d s|declares no wait)`)));
  });

  it('a provider whose capabilities say inProcess runs the job in-process without the flag', async () => {
    const r = await dapl(['run', '-n', '2', '--config', 'dapl.config.json', 'privatised.mjs', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Only an in-process rank has a rank context (and in it, the job key).
    const lines = sortedLines(r.stdout);
    lines.forEach((line, rank) => expect(line).toMatch(new RegExp(`^rank ${rank} of 2: counter 1, core instance 1, args x, key [0-9a-f]{64}$`)));
  });

  it('--help lists --in-process', async () => {
    const r = await dapl(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--in-process +Run the ranks as async tasks in this process/);
  });
});
