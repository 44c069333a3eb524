import type { ParameterSpec } from '@dapl/core';
import { resolveProviderParameters } from '@dapl/core/provider-kit';
import { COMBUF_MODEL, type CombufModel } from './model.js';

const M = COMBUF_MODEL;
const HUGE = 1e12;

/** Runtime parameters of the combuf provider (`DAPL_COMBUF_<NAME>`, `combuf.<name>` in dapl.config.json); model.ts cites each default. */
export const COMBUF_PARAMETERS: readonly ParameterSpec[] = [
  { name: 'maxNodes', type: 'integer', default: 65_536, min: 1, max: 1 << 20, help: 'nodes one fabric can hold; an IA is a node, numbered in open order (or its rank)' },
  { name: 'connectTimeoutMs', type: 'integer', default: 5_000, min: 1, max: 600_000, help: 'default wall-clock time an active connect may take before connection-timed-out' },
  { name: 'maxMessageSize', type: 'integer', default: 1 << 30, min: 1024, max: 0x8000_0000, help: 'largest send or remote DMA (bytes)' },
  { name: 'linkBytesPerNs', type: 'number', default: M.linkBytesPerNs, min: 1e-6, max: 1000, help: 'crossbar link rate, bytes/ns, half duplex (Tatebe et al. §5)' },
  { name: 'tcwReusedLatencyNs', type: 'number', default: M.tcwReusedLatencyNs, min: 0, max: HUGE, help: '8-byte TCW-reused remote DMA latency, one crossbar apart, ns (Tatebe et al. §5.1)' },
  { name: 'tcwCreateNs', type: 'number', default: M.tcwCreateNs, min: 0, max: HUGE, help: 'CPU cost of creating a TCW, ns (derived from the FMPL paper (Tatebe et al.) Table 1: 8.1 - 4.7 µs)' },
  { name: 'sendRightNs', type: 'number', default: M.sendRightNs, min: 0, max: HUGE, help: 'CPU cost of combuf_get_sendright on the first transfer to a node, ns (Tatebe et al. §5.1; figure not from the papers)' },
  { name: 'kickOverheadNs', type: 'number', default: M.kickOverheadNs, min: 0, max: HUGE, help: 'CPU cost of kicking a TCW, ns (not from the papers)' },
  { name: 'crossbarHopNs', type: 'number', default: M.crossbarHopNs, min: 0, max: HUGE, help: 'latency of one crossbar, ns (not from the papers)' },
  { name: 'linkLatencyNs', type: 'number', default: M.linkLatencyNs, min: 0, max: HUGE, help: 'cable latency, ns (not from the papers)' },
  { name: 'packetBytes', type: 'integer', default: M.packetBytes, min: 64, max: 1 << 20, help: 'largest packet payload on the crossbar, bytes (not from the papers)' },
  { name: 'packetHeaderBytes', type: 'integer', default: M.packetHeaderBytes, min: 0, max: 1024, help: 'header bytes per packet (not from the papers)' },
  { name: 'hostCopyBytesPerNs', type: 'number', default: M.hostCopyBytesPerNs, min: 1e-6, max: 1000, help: 'host memcpy speed for gathering/scattering multi-segment iovs, bytes/ns (not from the papers)' },
  { name: 'cmDelayNs', type: 'number', default: M.cmDelayNs, min: 0, max: HUGE, help: 'one leg of connection set-up, ns (not modelled in detail)' },
  { name: 'tcwCacheSize', type: 'integer', default: M.tcwCacheSize, min: 1, max: 1 << 20, help: 'TCWs a node keeps (LRU) before one is rewritten (not from the papers)' },
  { name: 'crossbarWidth', type: 'integer', default: M.crossbarWidth, min: 1, max: 1 << 16, help: 'nodes per crossbar row: X = min(width, maxNodes) (Tatebe et al. §3: up to 8)' },
  { name: 'hwBarrierNs', type: 'number', default: M.hwBarrierNs, min: 0, max: HUGE, help: 'hardware barrier, last arrival to release, ns (Tatebe et al. §5.2)' },
  { name: 'hwBroadcastCrossbars', type: 'integer', default: M.hwBroadcastCrossbars, min: 1, max: 16, help: 'crossbar stages a hardware broadcast crosses: the serialized y-crossbar, then the x-crossbars (Tatebe et al. §3.2)' },
];

export interface CombufParameters extends CombufModel {
  readonly maxNodes: number;
  readonly connectTimeoutMs: number;
  readonly maxMessageSize: number;
}


export function resolveCombufParameters(raw: Readonly<Record<string, unknown>> | undefined): CombufParameters {
  return resolveProviderParameters('combuf', COMBUF_PARAMETERS, raw) as unknown as CombufParameters;
}
