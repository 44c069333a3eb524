import type { Comm } from './comm.js';
import { UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import type { MpiState } from './mpi-state.js';
import { processorName } from './processor-name.js';

/** `splitType`'s one type: processes that can share memory, i.e. on one host (MPI_COMM_TYPE_SHARED). */
export const SPLIT_TYPE_SHARED = 1;
/** Bytes of a processor name that take part in the comparison (MPI_MAX_PROCESSOR_NAME). */
const MAX_PROCESSOR_NAME = 256;

/**
 * MPI_Comm_split_type: one communicator per host (the ranks whose `getProcessorName()` agree),
 * ordered by `key` then rank; `UNDEFINED` joins none and gets null. Collective: every member
 * publishes its host name (an allgather of 256 bytes each), then splits by the lowest rank on
 * the same host.
 */
export async function splitType(comm: Comm, state: MpiState, type: unknown, key: number): Promise<Comm | null> {
  if (type !== SPLIT_TYPE_SHARED && type !== UNDEFINED) {
    throw new MpiError(ErrorClass.ERR_ARG, `type must be SPLIT_TYPE_SHARED or UNDEFINED, got ${describeValue(type)}`, { argument: 'type' });
  }
  const mine = new Uint8Array(MAX_PROCESSOR_NAME);
  mine.set(new TextEncoder().encode(processorName(state)).subarray(0, MAX_PROCESSOR_NAME));
  const all = new Uint8Array(MAX_PROCESSOR_NAME * comm.size);
  await comm.allgather(mine, all);
  const nameOf = (r: number): string => Buffer.from(all.buffer, all.byteOffset + r * MAX_PROCESSOR_NAME, MAX_PROCESSOR_NAME).toString('latin1');
  const own = nameOf(comm.rank);
  let color = 0;
  while (nameOf(color) !== own) color++;
  return comm.split(type === UNDEFINED ? UNDEFINED : color, key);
}
