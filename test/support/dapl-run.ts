// `dapl run` as a child process, for the cross-package tests: the built CLI, the repository as the
// working directory, and an environment without the variables that would change what a job sees.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const dapl = fileURLToPath(new URL('../../packages/core/dist/cli/main.js', import.meta.url));

export interface Ran {
  readonly code: number | null;
  readonly killed: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * How long a job may take before it is killed, by default: far beyond what any job here needs on an
 * idle host (seconds), so that a loaded one (several-fold slower) does not fail it; under vitest's
 * testTimeout, so a job that hangs fails its test as `killed`.
 */
export const DEFAULT_KILL_AFTER_MS = 120_000;

/** Run `dapl run <args>`; a job that does not end within `killAfterMs` is killed (`killed`). */
export function daplRun(args: readonly string[], env: Record<string, string | undefined> = {}, killAfterMs = DEFAULT_KILL_AFTER_MS): Promise<Ran> {
  return nodeRun([dapl, 'run', ...args], env, killAfterMs);
}

const SCRUBBED = ['DAPL_MPI_', 'DAPL_TCP_', 'DAPL_IB_', 'DAPL_LAPI_', 'DAPL_COMBUF_', 'DAPL_PROVIDER', 'PMI_'];

/** Run `node <args>` (a script that may launch a job itself) in the same clean environment. */
export function nodeRun(args: readonly string[], env: Record<string, string | undefined> = {}, killAfterMs = DEFAULT_KILL_AFTER_MS): Promise<Ran> {
  const clean: Record<string, string | undefined> = { ...process.env, DAPL_JOB_KEY: undefined, DAPL_SIM_REPORT: undefined };
  // Settings from the developer's shell would change every job (and a misspelt one stops it).
  for (const key of Object.keys(clean)) if (SCRUBBED.some((prefix) => key.startsWith(prefix))) clean[key] = undefined;
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, timeout: killAfterMs, maxBuffer: 16 << 20, env: { ...clean, ...env } }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: unknown; killed?: boolean }) | null;
      resolve({ code: failed === null ? 0 : typeof failed.code === 'number' ? failed.code : null, killed: failed?.killed === true, stdout, stderr });
    });
  });
}

export function sortedLines(text: string): string[] {
  return text.trim().split('\n').sort();
}
