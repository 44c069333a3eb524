// Jobs of `dapl run --provider shm`: ranks as worker threads of the launcher's process. An idle job
// sleeps (its CPU time over an idle stretch is a small part of it), and a rank that exits, throws
// or aborts, or a --timeout, ends the job with the launcher's usual line and exit code and no
// thread left behind (the launcher's process ends).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dapl = fileURLToPath(new URL('../../core/dist/cli/main.js', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/job.mjs', import.meta.url));

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [dapl, 'run', ...args], { cwd: root, timeout: 120_000, env: { ...process.env, DAPL_JOB_KEY: undefined, ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('dapl run --provider shm', () => {
  it('an idle job (a rank blocked in a receive for 3 s) uses little CPU once its spin window has passed', async () => {
    const ran = await run(['-n', '2', '--provider', 'shm', fixture, 'idle', '3'], { DAPL_SHM_SPIN: 'on', DAPL_SHM_SPIN_US: '1000' });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const m = /^idle: ([0-9.]+) ms of CPU over (\d+) ms \(([0-9.]+) %\)$/m.exec(ran.stdout);
    expect(m, ran.stdout).not.toBeNull();
    // A mechanism bound a loaded host still meets: a rank that kept polling would use 100 % or more.
    expect(Number(m![3])).toBeLessThan(50);
    process.stdout.write(`${m![0]}\n`);
  }, 120_000);

  it('a rank that exits, throws or aborts, and --timeout, end the job with the usual line and exit code', async () => {
    const [exit, thrown, abort, hang] = await Promise.all([
      run(['-n', '3', '--provider', 'shm', fixture, 'exit']),
      run(['-n', '3', '--provider', 'shm', '--tag-output', fixture, 'throw']),
      run(['-n', '3', '--provider', 'shm', fixture, 'abort']),
      run(['-n', '2', '--provider', 'shm', '--timeout', '3', fixture, 'hang']),
    ]);
    expect(exit.code).toBe(3);
    expect(exit.stderr).toMatch(/^dapl run: rank 1 exited with code 3 after [0-9.]+ s; stopping the other 2 ranks$/m);
    expect(thrown.code).toBe(1);
    expect(thrown.stderr).toMatch(/^\[1\] Error: rank 1 failed$/m);
    expect(thrown.stderr).toMatch(/^dapl run: rank 1 exited with code 1 after [0-9.]+ s; stopping the other 2 ranks$/m);
    expect(abort.code).toBe(7);
    expect(abort.stderr).toMatch(/^dapl run: rank 1 called abort with code 7 after [0-9.]+ s; stopping the other 2 ranks$/m);
    expect(hang.code).toBe(124);
    expect(hang.stderr).toMatch(/^dapl run: the job did not finish within --timeout 3 s; stopping the 2 running ranks$/m);
  }, 120_000);
});
