import type { ResolvedSection } from '../config/dapl-config.js';

/** Processes one machine runs for a job: more is a typo, not a job. */
export const MAX_PROCESS_RANKS = 1024;

/** The parameter through which a simulated provider says how many nodes (ranks) its fabric holds. */
const NODES_PARAMETER = 'maxNodes';

/**
 * Why a job of `size` ranks cannot run on this provider, or undefined: real ranks are processes
 * (or tasks with real sockets), at most `MAX_PROCESS_RANKS`; a simulated provider's ranks are
 * nodes of its fabric, as many as its `maxNodes` allows (named, with how to raise it).
 */
export function rankLimitProblem(size: number, provider: string, simulated: boolean, section: ResolvedSection): string | undefined {
  if (!simulated) {
    if (size <= MAX_PROCESS_RANKS) return undefined;
    return `-n ${size}: a job of provider ${provider} runs its ranks as processes (or tasks with real connections), at most ${MAX_PROCESS_RANKS}; a simulated provider (ib, lapi, combuf) runs up to its maxNodes in one process`;
  }
  const max = section.values[NODES_PARAMETER];
  if (typeof max !== 'number' || size <= max) return undefined;
  const source = section.sources[NODES_PARAMETER];
  const key = source?.key ?? `${provider}.${NODES_PARAMETER}`;
  const env = source?.env === undefined ? '' : ` (${source.env}=${size}, or "${NODES_PARAMETER}": ${size} in the "${provider}" section of a config file)`;
  return `-n ${size}: the simulated fabric of provider ${provider} holds at most ${max} nodes, one per rank (${key}); raise ${key}${env}`;
}
