import type { ParameterSpec } from '@dapl/core';
import { resolveProviderParameters } from '@dapl/core/provider-kit';

/** Runtime parameters of the shm provider (`DAPL_SHM_<NAME>`, `shm.<name>` in dapl.config.json). */
export const SHM_PARAMETERS: readonly ParameterSpec[] = [
  {
    name: 'spin',
    type: 'enum',
    values: ['auto', 'on', 'off'],
    default: 'auto',
    help: "poll the rings for spinUs after activity before sleeping; auto: when the job's launcher says this host has a CPU for each rank (openIa's localProcesses), as Open MPI polls unless oversubscribed; and while it polls, only as long as its thread gets at least a third of the CPU time it wants or the job has the CPUs (Linux's per-thread run-queue accounting; where that cannot be read, when the host's 1-minute load average is below its CPU count at the start): a rank that polls while its peer waits for a CPU only delays it",
  },
  {
    name: 'spinUs',
    type: 'integer',
    default: 200,
    min: 0,
    max: 1_000_000,
    help: 'how long a rank with connections polls its rings after its last activity before it sleeps in Atomics.waitAsync (µs), when spin is on (or auto and each rank has a CPU); a peer that answers within it is seen without a 30-60 µs thread wake-up; timers and messages wait at most this long while it polls',
  },
  {
    name: 'ringBytes',
    type: 'integer',
    default: 1024 * 1024,
    min: 4096,
    max: 64 * 1024 * 1024,
    help: "bytes of each direction's ring of a connection (rounded up to a power of two; a connection is made when a pair first talks and holds two rings): messages from memory the peer cannot reach (not allocMem's) stream through it, and 1 MiB with 256 KiB fragments moves them about 1.5x as fast as 256 KiB with 64 KiB; lower it for jobs where every pair of many ranks talks",
  },
  { name: 'fragmentBytes', type: 'integer', default: 256 * 1024, min: 1024, max: 16 * 1024 * 1024, help: 'largest piece of a message in one ring frame (at most a quarter of the ring), so the receiver copies out while the sender copies in' },
  {
    name: 'peerMemoryBytes',
    type: 'integer',
    default: 8192,
    min: 0,
    max: 1024 * 1024,
    help: "bytes of each direction's peer memory per connection (the 'peer-memory' extension; rounded up to a multiple of 64, a cache line), which MPI's rdma device lays its fastboxes in; 0: none, and the IA does not offer the extension",
  },
  { name: 'connectTimeoutMs', type: 'integer', default: 10_000, min: 1, max: 600_000, help: 'default time an active connect may take before connection-timed-out' },
  { name: 'maxMessageSize', type: 'integer', default: 1 << 30, min: 1024, max: 0xffff_ffff, help: 'largest send or RDMA transfer accepted (bytes)' },
];

/** The shm provider's parameters resolved: one field per entry of {@link SHM_PARAMETERS}, of the same name. */
export interface ShmParameters {
  readonly spin: 'auto' | 'on' | 'off';
  readonly spinUs: number;
  readonly ringBytes: number;
  readonly fragmentBytes: number;
  readonly peerMemoryBytes: number;
  readonly connectTimeoutMs: number;
  readonly maxMessageSize: number;
}

export function resolveShmParameters(raw: Readonly<Record<string, unknown>> | undefined): ShmParameters {
  return resolveProviderParameters('shm', SHM_PARAMETERS, raw) as unknown as ShmParameters;
}

/** A ring's capacity: `ringBytes` rounded up to a power of two. */
export function ringCapacity(params: ShmParameters): number {
  return 2 ** Math.ceil(Math.log2(params.ringBytes));
}

/** Peer-memory regions are whole cache lines, so neither side's last line is shared with the other's first. */
const PEER_MEMORY_ALIGN = 64;

/** Bytes of each peer-memory region: `peerMemoryBytes` rounded up to whole cache lines (0: none). */
export function peerRegionBytes(params: ShmParameters): number {
  return Math.ceil(params.peerMemoryBytes / PEER_MEMORY_ALIGN) * PEER_MEMORY_ALIGN;
}

/** The payload of one frame: `fragmentBytes`, at most a quarter of the ring, a multiple of the frame alignment. */
export function fragmentLimit(params: ShmParameters, alignment: number): number {
  const limit = Math.min(params.fragmentBytes, ringCapacity(params) / 4);
  return limit - (limit % alignment);
}

/** How an IA polls: its window in µs (0: it sleeps at once when idle), and whether the window is governed. */
export interface SpinPlan {
  readonly spinUs: number;
  /** Polls only while the thread gets the CPU it wants (`spin=auto`, see spin-governor.ts). */
  readonly governed: boolean;
}

/**
 * The polling an IA does: `spinUs` when spin is on; with auto, `spinUs` when each rank has a CPU of
 * its own, governed by what the thread gets of its CPU while it polls where this thread's scheduler
 * accounting can be read (`governable`), else only when the host is not already busier than its
 * CPUs at the start (`load`: the 1-minute load average). A rank that polls while its peer waits for
 * a CPU delays the peer by a scheduling period (milliseconds), where sleeping costs a wake-up (30-60 µs).
 */
export function spinPlan(params: ShmParameters, localProcesses: number | undefined, cpus: number, governable: boolean, load: () => number): SpinPlan {
  if (params.spin === 'off') return { spinUs: 0, governed: false };
  if (params.spin === 'on') return { spinUs: params.spinUs, governed: false };
  if (localProcesses === undefined || localProcesses > cpus) return { spinUs: 0, governed: false };
  if (governable) return { spinUs: params.spinUs, governed: true };
  return { spinUs: load() < cpus ? params.spinUs : 0, governed: false };
}
