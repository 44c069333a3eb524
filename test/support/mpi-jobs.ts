// What the MPI job tests share: how each provider's jobs are launched, the fixture programs'
// paths, and the checks of a job that passed (one line per rank, nothing on stderr).
import { expect } from 'vitest';
import { sortedLines, type Ran } from './dapl-run.js';

export const fixture = (name: string) => `test/fixtures/mpi/${name}.mjs`;

/** `dapl run` flags per provider: tcp with the ranks in one process, the simulated machines, and shm's worker threads. */
export const PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  'tcp (ranks in one process)': ['--in-process', '--provider', 'tcp'],
  ib: ['--provider', 'ib'],
  lapi: ['--provider', 'lapi'],
  combuf: ['--provider', 'combuf'],
  'shm (worker threads)': ['--provider', 'shm'],
};

/** A job that ended by itself with status 0 and nothing on stderr: its stdout lines, sorted. */
export function passed(ran: Ran): string[] {
  expect(ran.stderr, ran.stderr).toBe('');
  expect(ran.killed).toBe(false);
  expect(ran.code).toBe(0);
  return sortedLines(ran.stdout);
}

/** The sorted lines `rank r: <text>` of ranks 0 … n−1. */
export function ranks(n: number, text: string | ((rank: number) => string)): string[] {
  return Array.from({ length: n }, (_, r) => `rank ${r}: ${typeof text === 'string' ? text : text(r)}`).sort();
}
