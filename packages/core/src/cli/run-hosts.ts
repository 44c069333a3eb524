import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import { decodeJobKey } from '../config/job-key.js';
import { parseHostfile, parseHostList, placeRanks, totalSlots, type HostSlots } from '../launcher/host-list.js';
import { launcherAddressFor } from '../launcher/launcher-address.js';
import type { CreatePmiServer } from '../launcher/pmi-server-port.js';
import type { SpawnRank } from '../launcher/rank-process.js';
import { RemotePmiService } from '../launcher/remote-pmi-service.js';
import { formatProcessMapping } from '../runtime/pmi/process-mapping.js';
import { remoteRankSpawner } from '../launcher/remote-rank.js';
import { UsageError, type ParsedArgs } from './cli-types.js';

/** The options of `dapl run` that spread a job over hosts. */
export const HOSTS_OPTIONS = [
  { name: 'hosts', type: 'string', valueName: 'LIST', help: 'Run the ranks on these hosts: host[:count],… (each takes count consecutive ranks in turn, as mpiexec -hosts)' },
  { name: 'hostfile', type: 'string', valueName: 'FILE', help: "Hosts from a file in MPICH's format: one host[:count] per line, # comments" },
  { name: 'launcher', type: 'string', valueName: 'ssh|CMD', help: "How to start a rank on a host: ssh (ssh -x), or CMD, run as 'CMD host command' (Hydra's -launcher-exec)" },
  { name: 'launcher-address', type: 'string', valueName: 'ADDR', help: 'Address the hosts reach the PMI server at (as mpiexec -localhost); default: the route to the first host' },
] as const;

export interface HostsRequest {
  readonly hosts: readonly HostSlots[];
  readonly launcher: readonly string[];
  readonly launcherAddress?: string;
}

/** The hosts options of `parsed`, checked; undefined when the job runs on this host only. */
export async function readHostsRequest({ values }: ParsedArgs, cwd: string): Promise<HostsRequest | undefined> {
  const list = typeof values.hosts === 'string' ? values.hosts : undefined;
  const file = typeof values.hostfile === 'string' ? values.hostfile : undefined;
  const launcher = typeof values.launcher === 'string' ? values.launcher : undefined;
  const address = typeof values['launcher-address'] === 'string' ? values['launcher-address'] : undefined;
  if (list === undefined && file === undefined) {
    if (launcher !== undefined || address !== undefined) throw new UsageError('--launcher and --launcher-address need --hosts or --hostfile', 'run');
    return undefined;
  }
  if (list !== undefined && file !== undefined) throw new UsageError('give --hosts or --hostfile, not both', 'run');
  if (values['in-process'] === true) throw new UsageError('--in-process runs every rank in this process: it cannot take --hosts or --hostfile', 'run');
  let hosts: HostSlots[];
  if (list !== undefined) hosts = parseHostList(list);
  else {
    const path = isAbsolute(file as string) ? (file as string) : resolve(cwd, file as string);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`--hostfile ${file}: ${(error as Error).message}`, 'run');
    }
    hosts = parseHostfile(text, `--hostfile ${file}`);
  }
  const words = (launcher ?? 'ssh').trim().split(/\s+/);
  if (words[0] === '') throw new UsageError('--launcher must be ssh or a command, got an empty string', 'run');
  if (address !== undefined && !/^[A-Za-z0-9_.:%-]+$/.test(address)) throw new UsageError(`--launcher-address must be a host name or address, got "${address}"`, 'run');
  return { hosts, launcher: words.length === 1 && words[0] === 'ssh' ? ['ssh', '-x'] : words, launcherAddress: address };
}

/** `parsed` with `-n` set to the hosts' total count when it was not given. */
export function withDefaultSize(parsed: ParsedArgs, request: HostsRequest | undefined): ParsedArgs {
  if (request === undefined || parsed.values.np !== undefined) return parsed;
  return { ...parsed, values: { ...parsed.values, np: String(totalSlots(request.hosts)) } };
}

export interface AcrossHosts {
  readonly spawnRank: SpawnRank;
  readonly createPmiServer: CreatePmiServer;
  /** Where the PMI server listens, `host:port`. */
  readonly pmiPort: string;
  readonly service: RemotePmiService;
}

/** Starts the job's authenticated PMI server and makes the spawner that runs each rank on its host. */
export async function prepareAcrossHosts(request: HostsRequest, size: number, jobKeyHex: string, logger: Logger): Promise<AcrossHosts> {
  const placement = placeRanks(request.hosts, size);
  const address = request.launcherAddress ?? (await launcherAddressFor(request.hosts.map((h) => h.host)));
  // The mapping numbers hosts by their place in the list, so a host listed twice has none.
  const distinct = new Set(request.hosts.map((h) => h.host)).size === request.hosts.length;
  const mapping = distinct ? formatProcessMapping(request.hosts.map((h) => h.slots)) : undefined;
  const service = new RemotePmiService(size, decodeJobKey(jobKeyHex, 'the job key'), logger, mapping);
  const port = await service.listen(address);
  const pmiPort = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  logger.debug({ pmiPort, placement }, 'PMI server for a job across hosts');
  return {
    spawnRank: remoteRankSpawner({ launcher: request.launcher, placement, pmiPort, pmiLink: (rank) => service.linkOf(rank) }),
    createPmiServer: service.create,
    pmiPort,
    service,
  };
}
