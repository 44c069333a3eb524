import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PmiServer } from '../src/runtime/pmi/pmi-server.js';

// The rank runs the built code (dist), as a launched program would: run `npx tsc -b` first.
const RANK = fileURLToPath(new URL('./fixtures/pmi/fd-rank.mjs', import.meta.url));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `size` ranks with PMI_FD=3, a socket pair whose parent end the server serves. */
function launch(server: PmiServer, size: number, mode: string): { child: ChildProcess; output: Promise<string>; exit: Promise<number | null> }[] {
  return Array.from({ length: size }, (_, rank) => {
    const child = spawn(process.execPath, [RANK, mode], {
      env: { ...process.env, PMI_FD: '3', PMI_RANK: String(rank), PMI_SIZE: String(size) },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    server.attach(child.stdio[3] as Duplex, rank);
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const exit = once(child, 'exit').then(([code]) => code as number | null);
    return { child, output: exit.then(() => text), exit };
  });
}

describe('PmiRuntime over an inherited PMI_FD, in real child processes', () => {
  it('two ranks exchange values through the server and finalize', async () => {
    const finalized: number[] = [];
    const problems: string[] = [];
    const server = new PmiServer({ size: 2, onFinalize: (rank) => finalized.push(rank), onProtocolError: (_, m) => problems.push(m), onDisconnect: (r) => problems.push(`disconnect ${r}`) });
    const ranks = launch(server, 2, 'normal');
    expect(await Promise.all(ranks.map((r) => r.exit))).toEqual([0, 0]);
    expect(await Promise.all(ranks.map((r) => r.output))).toEqual(['0/2 PmiRuntime true\n', '1/2 PmiRuntime true\n']);
    expect(finalized.sort()).toEqual([0, 1]);
    expect(problems).toEqual([]);
    await server.close();
  });

  it('abort reaches the server with its code and the rank exits with it', async () => {
    const aborts: [number, number][] = [];
    const server = new PmiServer({ size: 2, onAbort: (rank, code) => aborts.push([rank, code]) });
    const ranks = launch(server, 2, 'abort');
    expect(await ranks[1].exit).toBe(5);
    expect(await ranks[1].output).toBe('dapl: rank 1 aborting the job (exit code 5): rank 1 gives up\n');
    expect(aborts).toEqual([[1, 5]]);
    // Rank 0 learns that its fence can never complete, and exits with an error (not a hang).
    expect(await ranks[0].exit).not.toBe(0);
    expect(await ranks[0].output).toContain('rank_1_aborted');
    await server.close();
  });
});
