import type { InterfaceAdapter } from './ia.js';
import type { Lmr, MemAccess, RegisterableMemory, Rmr } from './memory.js';

/** A protection zone: endpoints, LMRs and RMRs of one zone only work with each other. */
export interface ProtectionZone {
  readonly ia: InterfaceAdapter;
  readonly freed: boolean;
  /**
   * Register caller memory (no copy) with the local and remote rights `access` allows.
   * @throws DatError INVALID_PARAMETER for memory that is not a byte view or buffer, or bad access.
   */
  registerLmr(memory: RegisterableMemory, access: MemAccess): Lmr;
  /** A new, unbound RMR of this zone; `bind` exposes memory through it. */
  createRmr(): Rmr;
  /**
   * `bytes` of zeroed memory suited to this zone's fastest path, to register with `registerLmr`:
   * plain memory on most providers; on shm a SharedArrayBuffer the peer thread reaches directly.
   */
  allocate(bytes: number): Uint8Array;
  /** Fails with INVALID_STATE while endpoints, LMRs or RMRs of the zone are alive. */
  free(): void;
}
