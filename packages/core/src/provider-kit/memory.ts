import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import { MemAccess, type Lmr, type RegisterableMemory, type Rmr, type RmrTriplet } from '../dat/memory.js';
import type { ProtectionZone } from '../dat/pz.js';
import type { IaBase } from './ia-base.js';
import { REMOTE_RIGHTS } from './rmr-table.js';
import { describe, requireHandle, requireInteger } from './validate.js';

const ALL_RIGHTS = MemAccess.ALL;
/** Largest `allocate` (what one ArrayBuffer may hold in Node 20 on 64-bit hosts). */
const MAX_ALLOCATION = 2 ** 32;

/**
 * `access` as a number of MemAccess flags within `allowed`.
 * @throws DatError INVALID_PARAMETER otherwise.
 */
export function requireAccess(access: unknown, argument: string, allowed: number = ALL_RIGHTS): number {
  if (typeof access !== 'number' || !Number.isInteger(access) || access < 0 || (access & ~allowed) !== 0) {
    throw new DatError(
      DatStatus.INVALID_PARAMETER,
      `${argument} must be a combination of MemAccess flags within 0x${allowed.toString(16)}, got ${describe(access)}`,
      { argument },
    );
  }
  return access;
}

/** A view of caller memory without copying it. */
export function viewOf(memory: RegisterableMemory, argument: string): Uint8Array {
  if (memory instanceof Uint8Array) return memory;
  if (ArrayBuffer.isView(memory)) return new Uint8Array(memory.buffer, memory.byteOffset, memory.byteLength);
  if (memory instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && memory instanceof SharedArrayBuffer)) {
    return new Uint8Array(memory);
  }
  throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be a typed array, Buffer, DataView, ArrayBuffer or SharedArrayBuffer, got ${describe(memory)}`, { argument });
}

/** The protection zone shared by every provider. Providers may subclass to charge registration cost. */
export class KitPz implements ProtectionZone {
  private isFreed = false;
  /** LMRs, RMRs and endpoints alive in this zone. */
  private users = 0;

  constructor(readonly ia: IaBase) {}

  get freed(): boolean {
    return this.isFreed;
  }

  registerLmr(memory: RegisterableMemory, access: MemAccess): Lmr {
    this.checkUsable('registerLmr');
    const bytes = viewOf(memory, 'memory');
    requireAccess(access, 'access');
    this.ia.onRegister(bytes.length);
    return new KitLmr(this, bytes, access);
  }

  createRmr(): Rmr {
    this.checkUsable('createRmr');
    return new KitRmr(this);
  }

  allocate(bytes: number): Uint8Array {
    this.checkUsable('allocate');
    requireInteger(bytes, 'bytes', 0, MAX_ALLOCATION);
    return this.allocateBytes(bytes);
  }

  /** The memory `allocate` returns (checked); providers with a faster kind of memory override it. */
  protected allocateBytes(bytes: number): Uint8Array {
    return new Uint8Array(bytes);
  }

  free(): void {
    this.checkUsable('free');
    if (this.users > 0) {
      throw new DatError(DatStatus.INVALID_STATE, `the PZ still has ${this.users} LMR(s), RMR(s) or endpoint(s); free those first`, { argument: 'pz', subtype: 'DAT_INVALID_STATE_PZ_IN_USE' });
    }
    this.isFreed = true;
  }

  /** Kit bookkeeping: an LMR, RMR or endpoint of this zone was made (`free` refuses while any is alive). */
  retain(): void {
    this.users++;
  }

  /** Kit bookkeeping: the pair of `retain`, when that object is freed. */
  release(): void {
    this.users--;
  }

  /**
   * Before operation `op` on the zone.
   * @throws DatError INVALID_HANDLE when the zone is freed or its IA closed.
   */
  checkUsable(op: string): void {
    this.ia.checkOpen(op);
    if (this.isFreed) throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the PZ has been freed`, { argument: 'pz', subtype: 'DAT_INVALID_HANDLE_PZ' });
  }
}

export class KitLmr implements Lmr {
  private isFreed = false;
  /** RMRs currently bound to this LMR. */
  bindings = 0;

  constructor(
    readonly pz: KitPz,
    readonly bytes: Uint8Array,
    readonly access: number,
  ) {
    pz.retain();
  }

  get length(): number {
    return this.bytes.length;
  }

  get freed(): boolean {
    return this.isFreed;
  }

  free(): void {
    if (this.isFreed) throw new DatError(DatStatus.INVALID_HANDLE, 'the LMR has already been freed', { argument: 'lmr', subtype: 'DAT_INVALID_HANDLE_LMR' });
    if (this.bindings > 0) {
      throw new DatError(DatStatus.INVALID_STATE, `the LMR has ${this.bindings} bound RMR(s); unbind or free them first`, { argument: 'lmr' });
    }
    this.isFreed = true;
    this.pz.release();
  }
}

/** Whether `value` is an LMR made by the kit (so its bytes and zone can be trusted). */
export function isKitLmr(value: unknown): value is KitLmr {
  return value instanceof KitLmr;
}

export class KitRmr implements Rmr {
  private isFreed = false;
  private bound: { context: bigint; lmr: KitLmr; triplet: RmrTriplet } | undefined;

  constructor(readonly pz: KitPz) {
    pz.retain();
  }

  get freed(): boolean {
    return this.isFreed;
  }

  get triplet(): RmrTriplet | undefined {
    return this.bound?.triplet;
  }

  bind(lmr: Lmr, offset: number, length: number, access: MemAccess): RmrTriplet {
    this.checkUsable('bind');
    const l = requireHandle(lmr, 'lmr', isKitLmr, 'LMR', 'DAT_INVALID_HANDLE_LMR');
    if (l.pz !== this.pz) {
      throw new DatError(DatStatus.PROTECTION_VIOLATION, 'lmr belongs to another protection zone than the RMR', { argument: 'lmr' });
    }
    requireInteger(offset, 'offset', 0, l.length, DatStatus.LENGTH_ERROR);
    requireInteger(length, 'length', 0, l.length - offset, DatStatus.LENGTH_ERROR);
    requireAccess(access, 'access', REMOTE_RIGHTS);
    if ((l.access & access) !== access) {
      throw new DatError(
        DatStatus.PRIVILEGES_VIOLATION,
        `access 0x${access.toString(16)} asks for rights the LMR was not registered with (0x${l.access.toString(16)})`,
        { argument: 'access' },
      );
    }
    this.unbind();
    const context = this.pz.ia.rmrTable.expose({ pz: this.pz, bytes: l.bytes, base: offset, length, access });
    l.bindings++;
    const triplet: RmrTriplet = { rmrContext: context, targetOffset: offset, length };
    this.bound = { context, lmr: l, triplet };
    return triplet;
  }

  unbind(): void {
    this.checkUsable('unbind');
    if (this.bound === undefined) return;
    this.pz.ia.rmrTable.revoke(this.bound.context);
    this.bound.lmr.bindings--;
    this.bound = undefined;
  }

  free(): void {
    this.checkUsable('free');
    this.unbind();
    this.isFreed = true;
    this.pz.release();
  }

  private checkUsable(op: string): void {
    if (this.isFreed) throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the RMR has been freed`, { argument: 'rmr', subtype: 'DAT_INVALID_HANDLE_RMR' });
    this.pz.ia.checkOpen(op);
  }
}
