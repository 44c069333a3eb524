import { KitPz } from '@dapl/core/provider-kit';

/**
 * The shm protection zone: `allocate` returns memory over a SharedArrayBuffer, which the ranks'
 * threads share — the memory to register for buffers that move often (MPI's `allocMem`).
 */
export class ShmPz extends KitPz {
  protected override allocateBytes(bytes: number): Uint8Array {
    return new Uint8Array(new SharedArrayBuffer(bytes));
  }
}
