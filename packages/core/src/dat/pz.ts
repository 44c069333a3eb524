import type { InterfaceAdapter } from './ia.js';
import type { Lmr, MemAccess, RegisterableMemory, Rmr } from './memory.js';

/** A protection zone: endpoints, LMRs and RMRs of one zone only work with each other. */
export interface ProtectionZone {
  readonly ia: InterfaceAdapter;
  readonly freed: boolean;
  registerLmr(memory: RegisterableMemory, access: MemAccess): Lmr;
  createRmr(): Rmr;
  /** Fails with INVALID_STATE while endpoints, LMRs or RMRs of the zone are alive. */
  free(): void;
}
