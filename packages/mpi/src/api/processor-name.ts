import { hostname } from 'node:os';
import type { MpiState } from './mpi-state.js';

/**
 * The host a rank runs on (MPI_Get_processor_name): the machine's host name on a real provider
 * (every rank of a one-process tcp job shares it); on simulated hardware, whose ranks each have a
 * node of the modelled machine, that node (`<provider>-node<world rank>`).
 */
export function processorName(state: MpiState): string {
  const ia = state.job.ia;
  return ia.provider.capabilities.inProcess ? `${ia.provider.name}-node${state.worldRank}` : hostname();
}
