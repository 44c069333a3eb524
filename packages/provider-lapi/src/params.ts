import { DatError, DatStatus, type ParameterSpec } from '@dapl/core';
import { resolveProviderParameters } from '@dapl/core/provider-kit';
import { LAPI_MODEL, type LapiCompletionHandler, type LapiMode, type LapiModel } from './model.js';

const M = LAPI_MODEL;
const HUGE = 1e12;

const ns = (name: keyof LapiModel, help: string): ParameterSpec => ({ name, type: 'number', default: M[name], min: 0, max: HUGE, help });

/** Runtime parameters of the lapi provider (`DAPL_LAPI_<NAME>`, `lapi.<name>` in dapl.config.json); model.ts cites each default. */
export const LAPI_PARAMETERS: readonly ParameterSpec[] = [
  { name: 'maxNodes', type: 'integer', default: 65_536, min: 1, max: 1 << 20, help: 'nodes one SP switch fabric can hold; an IA is a node (task)' },
  { name: 'connectTimeoutMs', type: 'integer', default: 5_000, min: 1, max: 600_000, help: 'default wall-clock time an active connect may take before connection-timed-out' },
  { name: 'maxMessageSize', type: 'integer', default: 1 << 30, min: 1024, max: 0x8000_0000, help: 'largest send or RDMA transfer (bytes)' },
  { name: 'mode', type: 'enum', default: 'polling', values: ['polling', 'interrupt'], help: 'how arrivals are noticed: polling, or an interrupt + wake-up per message (Banikazemi et al. §6.1)' },
  { name: 'completionHandler', type: 'enum', default: 'in-context', values: ['in-context', 'thread'], help: "a send's target completion: predefined in-context handler, or a user handler after a thread switch (Banikazemi et al. §5.2, Banikazemi et al. §5.3)" },
  { name: 'switchBytesPerNs', type: 'number', default: M.switchBytesPerNs, min: 1e-6, max: 1000, help: 'SP switch rate between a node pair, bytes/ns (Banikazemi et al. §1: 160 MB/s)' },
  { name: 'packetBytes', type: 'integer', default: M.packetBytes, min: 64, max: 65_536, help: 'switch packet size on the wire, LAPI header included, bytes (not from the papers: 1 KB-class)' },
  { name: 'lapiHeaderBytes', type: 'integer', default: M.lapiHeaderBytes, min: 0, max: 1024, help: 'LAPI header per packet, bytes (Banikazemi et al. §6.1)' },
  { name: 'dmaBytesPerNs', type: 'number', default: M.dmaBytesPerNs, min: 1e-6, max: 1000, help: 'adapter DMA rate, bytes/ns (Banikazemi et al. §2; figure not from the papers)' },
  { name: 'halCopyBytesPerNs', type: 'number', default: M.halCopyBytesPerNs, min: 1e-6, max: 1000, help: 'HAL copy rate into/out of pinned network buffers, bytes/ns (Banikazemi et al. §2; figure not from the papers)' },
  ns('switchLatencyNs', 'switch latency between two nodes, ns (not from the papers)'),
  ns('adapterSendNs', 'adapter per-message cost before sending, ns (not from the papers)'),
  ns('adapterRecvNs', 'adapter per-message cost after the last packet, ns (not from the papers)'),
  ns('dmaLatencyNs', 'start-up latency of an adapter DMA, ns (not from the papers)'),
  ns('halPacketNs', 'HAL per-packet cost, ns (not from the papers)'),
  ns('lapiCallNs', 'CPU cost of a LAPI call, charged to the posting rank, ns (not from the papers)'),
  ns('rmwNs', 'target dispatcher cost of applying an rmw to one word, ns (Banikazemi et al. §3 LAPI_Rmw; figure not from the papers)'),
  ns('headerHandlerNs', 'header handler cost at the target, ns (Banikazemi et al. §2; figure not from the papers)'),
  ns('completionInContextNs', 'predefined in-context completion handler cost, ns (Banikazemi et al. §5.3; figure not from the papers)'),
  ns('completionThreadSwitchNs', 'thread switch before a threaded completion handler, ns (Banikazemi et al. §5.2; figure not from the papers)'),
  ns('interruptNs', 'interrupt + wake-up per message arrival in interrupt mode, ns (Banikazemi et al. §6.1; figure not from the papers)'),
  ns('interruptDelayNs', "interrupt mode: how long the interrupt handler waits for more packets before it returns, ns: 0 for LAPI; the native MPI's hysteresis, 1000 by default there (Banikazemi et al. §6.1; IBM PE MPI Programming Guide, MP_INTRDELAY)"),
  { name: 'retransmitNs', type: 'number', default: M.retransmitNs, min: 1, max: HUGE, help: 'resend delay of a send whose header handler found no posted receive, ns (not from the papers)' },
  ns('cmDelayNs', 'one leg of connection set-up traffic, ns (not modelled in detail)'),
];

export interface LapiParameters extends LapiModel {
  readonly maxNodes: number;
  readonly connectTimeoutMs: number;
  readonly maxMessageSize: number;
  readonly mode: LapiMode;
  readonly completionHandler: LapiCompletionHandler;
}


export function resolveLapiParameters(raw: Readonly<Record<string, unknown>> | undefined): LapiParameters {
  const params = resolveProviderParameters('lapi', LAPI_PARAMETERS, raw) as unknown as LapiParameters;
  if (params.lapiHeaderBytes >= params.packetBytes) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `lapi.lapiHeaderBytes must be less than lapi.packetBytes (${params.packetBytes}), got ${params.lapiHeaderBytes}`, { argument: 'lapi.lapiHeaderBytes' });
  }
  return params;
}
