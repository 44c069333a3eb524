// Issue 36, items 1-4 and 7 as real jobs over tcp processes: programs that used to hang or crash end,
// say why, and leave no process behind; a stuck job says what each rank waits in.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { daplRun, root } from './support/dapl-run.js';
import { killAll, processesWith, uniqueToken } from './support/processes.js';

const CASES = 'test/fixtures/hardening/mpi-cases.mjs';
const JOB_MS = 120_000;
const dapl = fileURLToPath(new URL('../packages/core/dist/cli/main.js', import.meta.url));

/** Run a fixture job with a token argument; afterwards none of its processes may be left. */
async function job(args: readonly string[], env: Record<string, string> = {}, killAfterMs = 60_000) {
  const token = uniqueToken('hardening');
  const ran = await daplRun([...args, token], env, killAfterMs);
  const left = processesWith(token);
  killAll(left);
  return { ...ran, left };
}

describe('hardening: jobs that used to hang end, leaving no process', () => {
  it('a program that never calls mpi.finalize() is finalized at exit with a warning (item 1)', async () => {
    const ran = await job(['-n', '2', CASES, 'no-finalize']);
    expect(ran.killed).toBe(false);
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim().split('\n').sort()).toEqual(['rank 0: exchanged 7, ending without finalize', 'rank 1: exchanged 7, ending without finalize']);
    expect(ran.stderr).toContain('rank 0: the program ended without calling mpi.finalize(); finalizing at exit');
    expect(ran.stderr).toContain('rank 1: the program ended without calling mpi.finalize(); finalizing at exit');
    expect(ran.left).toEqual([]);
  }, JOB_MS);

  it('job.finish() that fails (the barrier refused) still closes everything, and the rank exits (item 2)', async () => {
    const ran = await job(['-n', '2', 'test/fixtures/hardening/finish-after-peer-left.mjs']);
    expect(ran.killed).toBe(false);
    expect(ran.stdout).toMatch(/rank 0: finish failed \(DAT_CONNECTION_BROKEN\), closed anyway/);
    expect(ran.left).toEqual([]);
  }, JOB_MS);

  it('finalize with a send nobody receives ends within mpi.finalizeTimeout, naming the send and its peer (item 3)', async () => {
    const ran = await job(['-n', '2', CASES, 'unreceived-send'], { DAPL_MPI_FINALIZE_TIMEOUT: '2' });
    expect(ran.killed).toBe(false);
    expect(ran.stdout).toContain('rank 0: finalize failed with MPI_ERR_PENDING');
    expect(ran.stdout).toMatch(/waiting for 1 send: send to rank 1 tag 9 \(65536 B, standard, context 0\)/);
    expect(ran.stdout).toContain('rank 1: finalized');
    expect(ran.code).toBe(5);
    expect(ran.left).toEqual([]);
  }, JOB_MS);

  it('a receive buffer detached while its receive is pending fails that receive with ERR_BUFFER, not the process (item 4)', async () => {
    const ran = await job(['-n', '2', CASES, 'detached-recv']);
    expect(ran.stderr).not.toContain('TypeError');
    expect(ran.stdout.trim().split('\n')).toEqual(['rank 1: the receive failed with ERR_BUFFER', 'rank 1: then received 5,6,7,8']);
    expect(ran.code).toBe(0);
    expect(ran.left).toEqual([]);
  }, JOB_MS);

  it('dapl run stopped by SIGTERM prints what each running rank waits in before it stops them (item 7, examples/stuck.mjs)', async () => {
    const token = uniqueToken('hardening');
    const child = spawn(process.execPath, [dapl, 'run', '-n', '3', 'examples/stuck.mjs', token], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Every rank has said it is about to wait: then it waits (the wait is declared as it starts).
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if ((stdout.match(/^rank \d: /gm) ?? []).length === 3) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await exited;
    const left = processesWith(token);
    killAll(left);
    expect(code).toBe(143);
    expect(stderr).toContain('dapl run: received SIGTERM');
    expect(stderr).toMatch(/dapl run: rank 0 waits in MPI recv from rank 1 tag 9 \(context 0\) for \d+\.\d s/);
    expect(stderr).toMatch(/dapl run: rank 1 waits in MPI barrier on world for \d+\.\d s/);
    expect(stderr).toMatch(/dapl run: rank 2 waits in MPI barrier on world for \d+\.\d s/);
    expect(left).toEqual([]);
  }, JOB_MS);

  it('an option key a call does not take is ERR_ARG naming it and the keys it takes; a detached send buffer is ERR_BUFFER, a throwing user op ERR_OP (items 9, 10)', async () => {
    const ran = await job(['-n', '2', '--provider', 'ib', 'test/fixtures/hardening/mpi-misuse.mjs']);
    expect(ran.stderr).toBe('');
    expect(ran.stdout.trim().split('\n').sort()).toEqual(['rank 0: misuse refused (9 cases)', 'rank 1: misuse refused (9 cases)']);
    expect(ran.code).toBe(0);
  }, JOB_MS);
});
