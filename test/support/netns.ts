// Hosts as network namespaces for the multi-host tests (netns-hosts.sh, notes/multi-host.md), jobs
// launched into them, and the lines their ranks print about where they ran (fixtures/multihost/where.mjs).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { root } from './dapl-run.js';

const hostsScript = fileURLToPath(new URL('./netns-hosts.sh', import.meta.url));
/** The launcher shim (Hydra's -launcher-exec, `dapl run --launcher`). */
export const netnsLaunch = fileURLToPath(new URL('./netns-launch', import.meta.url));

/** Under CI a missing prerequisite fails the test; elsewhere the tests are skipped, saying why. */
export const requiredByCi = process.env.CI === 'true';

/** Why namespace hosts cannot be made here (undefined: they can), checking `commands` too. */
export function missingPrerequisite(commands: readonly string[] = []): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'creating network namespaces needs root';
  for (const command of ['ip', 'unshare', 'nsenter', ...commands]) {
    if (spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0) return `${command} is not installed`;
  }
  return undefined;
}

export interface NetnsHosts {
  /** Host names, which are the namespace names: `<tag>1`… */
  readonly names: readonly string[];
  /** Each host's address, by name. */
  readonly address: Readonly<Record<string, string>>;
  /** The bridge's address in the root namespace (where mpiexec, srun or dapl run listen). */
  readonly bridge: string;
  /** The pids of the processes in host `name`. */
  pids(name: string): number[];
  /** SIGKILL every process in `name` (the host dies), or only those whose command is `command`; returns how many. */
  killHost(name: string, command?: string): number;
  remove(): void;
}

/** Creates `count` hosts `<tag>1…` at `<net>.11…` on bridge `br-<tag>` at `<net>.1`. */
export function createHosts(tag: string, count: number, net: string): NetnsHosts {
  execFileSync(hostsScript, ['up', tag, String(count), net], { stdio: ['ignore', 'ignore', 'pipe'] });
  return describeHosts(tag, count, net);
}

/** The hosts `createHosts` (or slurm-cluster.sh) made with these arguments. */
export function describeHosts(tag: string, count: number, net: string): NetnsHosts {
  const names = Array.from({ length: count }, (_, i) => `${tag}${i + 1}`);
  return {
    names,
    address: Object.fromEntries(names.map((name, i) => [name, `${net}.1${i + 1}`])),
    bridge: `${net}.1`,
    pids(name) {
      return execFileSync(hostsScript, ['pids', tag, name.slice(tag.length)], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number);
    },
    killHost(name, command) {
      const pids = this.pids(name).filter((pid) => command === undefined || commandOf(pid) === command);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      return pids.length;
    },
    remove() {
      execFileSync(hostsScript, ['down', tag, String(count)], { stdio: 'ignore' });
    },
  };
}

/** The command name of process `pid` (`/proc/<pid>/comm`), undefined once it is gone. */
export function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export interface Where {
  readonly rank: number;
  readonly what: string;
  readonly host: string;
  readonly listen: string;
  readonly peers: ReadonlyMap<number, string>;
  readonly local: string;
}

/** The `where.mjs` lines of `stdout`, by rank. */
export function whereLines(stdout: string): Where[] {
  const out: Where[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(?:\[\d+\] )?rank (\d+): (\w+) ok host=(\S+) listen=(\S+) peers=(\S*) local=(\S+)$/.exec(line);
    if (m === null) continue;
    const peers = new Map(m[5] === '' ? [] : m[5].split(',').map((p) => [Number(p.split('@')[0]), p.split('@')[1]] as const));
    out[Number(m[1])] = { rank: Number(m[1]), what: m[2], host: m[3], listen: m[4], peers, local: m[6] };
  }
  return out;
}

/**
 * Checks that every one of `size` ranks printed its line, ran on one of `hosts`, listened on its host's
 * address, and reached every peer at that peer's host's address; returns the host of each rank.
 */
export function expectSpreadOverHosts(stdout: string, size: number, hosts: NetnsHosts, what: string): string[] {
  const lines = whereLines(stdout);
  expect(lines.filter(Boolean).map((l) => l.rank), stdout).toEqual(Array.from({ length: size }, (_, r) => r));
  for (const l of lines) {
    expect(l.what).toBe(what);
    expect(hosts.names, `rank ${l.rank} ran on ${l.host}`).toContain(l.host);
    expect(l.listen, `rank ${l.rank} on ${l.host} listens on its host's address`).toBe(hosts.address[l.host]);
    for (const [peer, address] of l.peers) expect(address, `rank ${l.rank} reached rank ${peer}`).toBe(hosts.address[lines[peer].host]);
  }
  const hostOf = lines.map((l) => l.host);
  expect(new Set(hostOf).size, 'the job spans more than one host').toBeGreaterThan(1);
  return hostOf;
}

export interface Launched {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Running {
  /** Resolves once `stdout` has a line matching `pattern` `count` times. */
  waitFor(pattern: RegExp, count: number): Promise<void>;
  readonly done: Promise<Launched & { readonly endedAtMs: number }>;
  /** What the job printed on stdout so far. */
  stdout(): string;
  /** Writes to the job's stdin (rank 0's). */
  write(text: string): void;
  kill(): void;
}

/** Starts `command args` from the repository root with a clean PMI/DAPL environment; killed after `killAfterMs`. */
export function launch(command: string, args: readonly string[], env: Record<string, string | undefined> = {}, killAfterMs = 90_000): Running {
  const clean: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(clean)) if (key.startsWith('PMI_') || key.startsWith('DAPL_') || key.startsWith('SLURM_')) delete clean[key];
  const child = spawn(command, args, { cwd: root, env: { ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  child.stdin.on('error', () => undefined);
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  let exited = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiters.slice()) w();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = (): void => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // gone
    }
  };
  const timer = setTimeout(stop, killAfterMs);
  const done = new Promise<Launched & { endedAtMs: number }>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      exited = true;
      for (const w of waiters.splice(0)) w();
      resolve({ code, signal, stdout, stderr, endedAtMs: performance.now() });
    });
  });
  return {
    done,
    kill: stop,
    stdout: () => stdout,
    write: (text) => void child.stdin.write(text),
    waitFor(pattern, count) {
      const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}gm`);
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if ((stdout.match(global) ?? []).length >= count) resolve();
          else if (exited) reject(new Error(`the job ended before ${count} lines matched ${pattern}:\n${stdout}\n${stderr}`));
          else return;
          const i = waiters.indexOf(check);
          if (i >= 0) waiters.splice(i, 1);
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** What a foreign process got from knocking on `host:port` with `payload`: the bytes sent back, and whether the peer closed. */
export function knock(host: string, port: number, payload: string, waitMs = 8000): Promise<{ readonly received: string; readonly closedByPeer: boolean }> {
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect({ host, port }, () => socket.write(payload));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, closedByPeer: false });
    }, waitMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, closedByPeer: true });
    });
  });
}

/** The `linger.mjs` ready lines: host, pid, PMI port and PSP (`address#connQual`) of each rank. */
export function readyLines(stdout: string): { host: string; pid: number; pmi: string; psp: string }[] {
  const out: { host: string; pid: number; pmi: string; psp: string }[] = [];
  for (const m of stdout.matchAll(/^(?:\[\d+\] )?rank (\d+): ready host=(\S+) pid=(\d+) pmi=(\S+) psp=(\S+)$/gm)) {
    out[Number(m[1])] = { host: m[2], pid: Number(m[3]), pmi: m[4], psp: m[5] };
  }
  return out;
}

/** When `condition` first held (polled every 20 ms, for at most 10 s). */
export async function whenTrue(condition: () => boolean): Promise<number> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 20));
  return performance.now();
}
