// The processes of a job, found by a token on their command line: after a job has ended, none may be
// left (ranks run in their own process groups, so a rank that never exits outlives its launcher).
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of live processes whose command line contains `token` (Linux /proc). */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(token)) found.push(Number(entry));
  }
  return found;
}

/** A token no other job's command line has. */
export function uniqueToken(label: string): string {
  return `${label}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Kill what a failed test left behind, so one failure does not load the rest of the suite. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
