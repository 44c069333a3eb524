import { UsageError } from '../cli/cli-types.js';

/** A host of `--hosts` or `--hostfile` and how many ranks it takes per round. */
export interface HostSlots {
  readonly host: string;
  readonly slots: number;
}

const COMMAND = 'run';
/** A host name or address: no whitespace, no shell metacharacters (it is passed to the launcher command). */
const HOST_NAME = /^[A-Za-z0-9_.\-[\]:%]+$/;
const MAX_SLOTS = 1024;

/** `h1:2,h2:2` (a count of 1 when omitted), as MPICH's `-hosts`. */
export function parseHostList(text: string): HostSlots[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.some((entry) => entry === '')) throw new UsageError(`--hosts must be host[:count] entries separated by commas, got "${text}"`, COMMAND);
  return entries.map((entry) => parseHostEntry(entry, '--hosts'));
}

/**
 * MPICH's hostfile format: one `host[:count]` per line; `#` starts a comment; blank lines are
 * skipped. `where` names the file in errors.
 */
export function parseHostfile(text: string, where: string): HostSlots[] {
  const hosts: HostSlots[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    if (/\s/.test(line)) throw new UsageError(`${where} line ${index + 1}: expected host[:count], got "${line}"`, COMMAND);
    hosts.push(parseHostEntry(line, `${where} line ${index + 1}`));
  });
  if (hosts.length === 0) throw new UsageError(`${where} names no host`, COMMAND);
  return hosts;
}

function parseHostEntry(entry: string, where: string): HostSlots {
  // An IPv6 address is written in brackets: [fd00::1]:2.
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
  const host = m?.[1];
  const slots = m?.[2] === undefined ? 1 : Number(m[2]);
  if (host === undefined || !HOST_NAME.test(host)) {
    throw new UsageError(`${where}: "${entry}" is not host[:count] (a host name or address, then optionally ':' and a number of ranks)`, COMMAND);
  }
  if (!Number.isSafeInteger(slots) || slots < 1 || slots > MAX_SLOTS) {
    throw new UsageError(`${where}: the count of "${entry}" must be an integer from 1 to ${MAX_SLOTS}`, COMMAND);
  }
  return { host: host.replace(/^\[(.*)\]$/, '$1'), slots };
}

export function totalSlots(hosts: readonly HostSlots[]): number {
  return hosts.reduce((sum, h) => sum + h.slots, 0);
}

/**
 * The host of each of `size` ranks, as MPICH's Hydra places them: each host in turn takes its count
 * of consecutive ranks; when every host has had its turn and ranks remain, the list starts over.
 */
export function placeRanks(hosts: readonly HostSlots[], size: number): string[] {
  const placed: string[] = [];
  while (placed.length < size) {
    for (const { host, slots } of hosts) {
      for (let i = 0; i < slots && placed.length < size; i++) placed.push(host);
    }
  }
  return placed;
}
