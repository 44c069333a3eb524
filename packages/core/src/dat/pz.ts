import type { InterfaceAdapter } from './ia.js';
import type { Lmr, MemAccess, RegisterableMemory, Rmr } from './memory.js';

/** A protection zone: endpoints, LMRs and RMRs of one zone only work with each other. */
export interface ProtectionZone {
  readonly ia: InterfaceAdapter;
  readonly freed: boolean;
  registerLmr(memory: RegisterableMemory, access: MemAccess): Lmr;
  createRmr(): Rmr;
  /**
   * `bytes` of zeroed memory suited to this zone's fastest path, to register with `registerLmr`:
   * plain memory on most providers; on shm a SharedArrayBuffer the peer thread reaches directly.
   */
  allocate(bytes: number): Uint8Array;
  /** Fails with INVALID_STATE while endpoints, LMRs or RMRs of the zone are alive. */
  free(): void;
}
