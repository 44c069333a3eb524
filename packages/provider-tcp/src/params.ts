import type { ParameterSpec } from '@dapl/core';
import { resolveProviderParameters } from '@dapl/core/provider-kit';

/** Runtime parameters of the tcp provider (`DAPL_TCP_<NAME>`, `tcp.<name>` in dapl.config.json). */
export const TCP_PARAMETERS: readonly ParameterSpec[] = [
  {
    name: 'interface',
    type: 'string',
    default: 'auto',
    help: "address to listen on and to advertise to peers (an IP address or host name); auto: 127.0.0.1 while every rank of the job is on this host, else the address of the interface that reaches the launcher's host (its first non-loopback IPv4 address when the launcher does not say where it is)",
  },
  { name: 'connectTimeoutMs', type: 'integer', default: 10_000, min: 1, max: 600_000, help: 'default time an active connect may take before connection-timed-out' },
  {
    name: 'maxUnauthenticated',
    type: 'integer',
    default: 1024,
    min: 1,
    max: 65_536,
    help: 'connections an IA holds before they authenticate (each holds a read buffer for up to handshakeTimeoutMs); one beyond it is closed at once (counter refusedUnauthenticated). Peers authenticate in their first round trip, so a job of up to this many ranks never meets it',
  },
  { name: 'handshakeTimeoutMs', type: 'integer', default: 5_000, min: 1, max: 600_000, help: 'time a client has to authenticate before the server drops it' },
  { name: 'copyThreshold', type: 'integer', default: 4096, min: 0, max: 65_536, help: 'payloads up to this size are copied into the coalescing output buffer; larger ones are written from the caller\'s memory' },
  { name: 'maxMessageSize', type: 'integer', default: 1 << 30, min: 1024, max: 0xffff_ffff, help: 'largest send or RDMA transfer accepted (bytes)' },
  { name: 'writeBufferBytes', type: 'integer', default: 256 * 1024, min: 16 * 1024, max: 64 * 1024 * 1024, help: 'bytes a connection may have queued in its socket before the provider stops producing frames until drain (the socket high-water mark)' },
  { name: 'keepAliveMs', type: 'integer', default: 5_000, min: 0, max: 3_600_000, help: 'TCP keepalive idle time (0 disables; rounded up to whole seconds, the kernel\'s unit), so a vanished host turns into connection-broken; a connection whose input is paused (a SEND with no receive posted) also writes a probe every keepAliveMs (every second if that is longer, 100 ms at the least; 0: never), so a peer process that ends meanwhile is seen' },
  {
    name: 'busyPoll',
    type: 'enum',
    values: ['auto', 'on', 'off'],
    default: 'auto',
    help: "keep the event loop polling for pollUs after input and after each write of requests instead of sleeping (MPICH-style progress: a prompt reply is read without a wake-up); auto: when the job's launcher says this host has a CPU for each of its processes (openIa's localProcesses; in-process ranks count as one), as Open MPI polls unless oversubscribed; either way a process that got less than half a CPU while it spun (a host busy with other work) pauses polling for a second",
  },
  {
    name: 'pollUs',
    type: 'integer',
    default: 200,
    min: 0,
    max: 1_000_000,
    help: 'how long the event loop keeps polling after input arrives or requests are written, in microseconds, when busyPoll is on (or auto and each process has a CPU); 0 never polls',
  },
];

/** The tcp provider's parameters resolved: one field per entry of {@link TCP_PARAMETERS}, of the same name. */
export interface TcpParameters {
  readonly interface: string;
  readonly connectTimeoutMs: number;
  readonly handshakeTimeoutMs: number;
  readonly maxUnauthenticated: number;
  readonly copyThreshold: number;
  readonly maxMessageSize: number;
  readonly writeBufferBytes: number;
  readonly keepAliveMs: number;
  readonly busyPoll: 'auto' | 'on' | 'off';
  readonly pollUs: number;
}

export function resolveTcpParameters(raw: Readonly<Record<string, unknown>> | undefined): TcpParameters {
  return resolveProviderParameters('tcp', TCP_PARAMETERS, raw) as unknown as TcpParameters;
}

/**
 * The busy-polling window an IA uses, in µs (0: it never polls): `pollUs` when `busyPoll` is on, or
 * auto with `localProcesses` known and at most `cpus`.
 */
export function pollWindowUs(params: TcpParameters, localProcesses: number | undefined, cpus: number): number {
  if (params.busyPoll === 'off') return 0;
  if (params.busyPoll === 'auto' && (localProcesses === undefined || localProcesses > cpus)) return 0;
  return params.pollUs;
}

/**
 * The keepalive delay to hand Node: the kernel counts whole seconds and Node truncates, so 1–999 ms
 * would become 0, which leaves the system default (two hours) in place. Rounded up instead.
 */
export function keepAliveDelayMs(params: TcpParameters): number {
  return Math.ceil(params.keepAliveMs / 1000) * 1000;
}

/**
 * How often a connection with paused input probes its peer (ms; 0: never): every `keepAliveMs`, or
 * every second if that is longer, but not more often than every 100 ms.
 */
export function probeIntervalMs(params: TcpParameters): number {
  return params.keepAliveMs === 0 ? 0 : Math.max(100, Math.min(params.keepAliveMs, 1000));
}

/** The keepalive options of every socket the provider makes (connected and accepted alike). */
export function keepAliveOptions(params: TcpParameters): { readonly keepAlive: boolean; readonly keepAliveInitialDelay: number } {
  return { keepAlive: params.keepAliveMs > 0, keepAliveInitialDelay: keepAliveDelayMs(params) };
}
