import type { ParameterSpec } from '@dapl/core';
import { resolveProviderParameters } from '@dapl/core/provider-kit';
import { IB_MODEL, type IbModel } from './model.js';

const M = IB_MODEL;
const HUGE = 1e12;

/** Runtime parameters of the ib provider (`DAPL_IB_<NAME>`, `ib.<name>` in dapl.config.json); model.ts cites each default. */
export const IB_PARAMETERS: readonly ParameterSpec[] = [
  { name: 'maxNodes', type: 'integer', default: 65_536, min: 1, max: 1 << 20, help: 'nodes (HCAs) one fabric can hold, one per rank; an IA is a node, numbered in LID order (beyond the 48K unicast LIDs of one real IBA subnet: the simulated subnet numbers on)' },
  { name: 'connectTimeoutMs', type: 'integer', default: 5_000, min: 1, max: 600_000, help: 'default wall-clock time an active connect may take before connection-timed-out' },
  { name: 'maxMessageSize', type: 'integer', default: 1 << 30, min: 1024, max: 0x8000_0000, help: 'largest send or RDMA transfer (bytes); IBA allows 2^31' },
  { name: 'linkBytesPerNs', type: 'number', default: M.linkBytesPerNs, min: 1e-6, max: 1000, help: 'link data rate, bytes/ns: 4X, 10 Gbps signalling, 8b/10b (Chai et al. §2.1)' },
  { name: 'pciBytesPerNs', type: 'number', default: M.pciBytesPerNs, min: 1e-6, max: 1000, help: 'host bus DMA rate, bytes/ns: 64-bit 133 MHz PCI-X (Chai et al. §4.1)' },
  { name: 'inlineBytes', type: 'integer', default: M.inlineBytes, min: 0, max: 4096, help: 'payloads up to this size go inline in the WQE, with no DMA read (Chai et al. §4.2)' },
  { name: 'mtuBytes', type: 'integer', default: M.mtuBytes, min: 256, max: 4096, help: 'IB path MTU, bytes (not from the papers: MT23108 typical 2048)' },
  { name: 'packetHeaderBytes', type: 'integer', default: M.packetHeaderBytes, min: 0, max: 1024, help: 'wire header bytes per packet (IBA LRH+BTH+ICRC+VCRC)' },
  { name: 'linkLatencyNs', type: 'number', default: M.linkLatencyNs, min: 0, max: HUGE, help: 'cable and SerDes latency, ns (not from the papers)' },
  { name: 'switchHopNs', type: 'number', default: M.switchHopNs, min: 0, max: HUGE, help: 'switch port-to-port latency per hop, ns (not from the papers: InfiniScale ≈ 200 ns)' },
  { name: 'postOverheadNs', type: 'number', default: M.postOverheadNs, min: 0, max: HUGE, help: 'CPU cost of posting a work request (WQE + doorbell), charged to the posting rank, ns (not from the papers)' },
  { name: 'hcaSendOverheadNs', type: 'number', default: M.hcaSendOverheadNs, min: 0, max: HUGE, help: 'HCA per-message cost before sending, ns (not from the papers)' },
  { name: 'hcaRecvOverheadNs', type: 'number', default: M.hcaRecvOverheadNs, min: 0, max: HUGE, help: 'HCA per-message cost after receiving, ns (not from the papers)' },
  { name: 'pciReadLatencyNs', type: 'number', default: M.pciReadLatencyNs, min: 0, max: HUGE, help: 'round trip of a PCI-X DMA read, ns (not from the papers)' },
  { name: 'doorbellNs', type: 'number', default: M.doorbellNs, min: 0, max: HUGE, help: 'PIO doorbell write reaching the HCA, ns (not from the papers)' },
  { name: 'wqeBytes', type: 'integer', default: M.wqeBytes, min: 0, max: 4096, help: 'bytes of a work request the HCA reads by DMA after the doorbell (inline data rides in it) (not from the papers)' },
  { name: 'pciWriteLatencyNs', type: 'number', default: M.pciWriteLatencyNs, min: 0, max: HUGE, help: 'latency of a PCI-X DMA write incl. the completion entry, ns (not from the papers)' },
  { name: 'rnrTimerNs', type: 'number', default: M.rnrTimerNs, min: 1, max: HUGE, help: 'RNR NAK timer: wait before a send that found no receive is retried, ns (not from the papers: IBA code 12)' },
  { name: 'rnrRetries', type: 'integer', default: M.rnrRetries, min: 0, max: 7, help: 'RNR retries before RECEIVER_NOT_READY breaks the connection; 7 = retry for ever (IBA)' },
  { name: 'registerRegionNs', type: 'number', default: M.registerRegionNs, min: 0, max: HUGE, help: 'CPU cost of one memory registration, ns (Chai et al. §3.2 says costly; figure not from the papers)' },
  { name: 'registerPageNs', type: 'number', default: M.registerPageNs, min: 0, max: HUGE, help: 'registration cost per page, ns (not from the papers)' },
  { name: 'pageBytes', type: 'integer', default: M.pageBytes, min: 1, max: 1 << 30, help: 'page size registration costs count in, bytes' },
  { name: 'cmDelayNs', type: 'number', default: M.cmDelayNs, min: 0, max: HUGE, help: 'one leg of connection-manager traffic, ns (not modelled in detail)' },
];

export interface IbParameters extends IbModel {
  readonly maxNodes: number;
  readonly connectTimeoutMs: number;
  readonly maxMessageSize: number;
}


export function resolveIbParameters(raw: Readonly<Record<string, unknown>> | undefined): IbParameters {
  return resolveProviderParameters('ib', IB_PARAMETERS, raw) as unknown as IbParameters;
}
