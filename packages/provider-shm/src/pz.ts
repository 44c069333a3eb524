import { KitPz } from '@dapl/core/provider-kit';

/**
 * The shm protection zone: `allocate` returns memory over a SharedArrayBuffer, which the ranks'
 * threads share — the memory to register for buffers that move often (MPI's `allocMem`).
 */
let nextZone = 1;

export class ShmPz extends KitPz {
  /** Names the zone in the window directory (a window is reached only by endpoints of its zone). */
  readonly zone = nextZone++ & 0xffffff;

  protected override allocateBytes(bytes: number): Uint8Array {
    return new Uint8Array(new SharedArrayBuffer(bytes));
  }
}
