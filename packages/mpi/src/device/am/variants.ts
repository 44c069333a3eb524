import type { MpiParameters } from '../../api/mpi-parameters.js';

/**
 * How each MPI-LAPI version (Banikazemi, Govindaraju, Blackmore, Panda: "MPI-LAPI: An Efficient
 * Implementation of MPI for IBM RS/6000 SP Systems", §5) learns that a message's data is in place:
 * - base: a completion handler, which LAPI runs on its completion thread (a thread switch);
 * - counters: eager data (and rendezvous data, sent the eager way) by LAPI's target counter, no
 *   completion handler; the rendezvous handshake still needs completion handlers (a request to send
 *   that arrived does not mean the data may come);
 * - enhanced: completion predefined in LAPI (`AmPlacement.signal`): the data's arrival marks the
 *   receive done in the dispatcher's context, with no thread switch and no handler of MPI's to run;
 *   the handshake's completion handlers (which must send) run in the dispatcher's context too.
 */
export interface AmVariant {
  /** Eager and rendezvous data complete by the per-source target counter instead of a completion handler. */
  readonly dataByCounter: boolean;
  /** Completion handlers run in the dispatcher's context. */
  readonly inContext: boolean;
  /** Eager and rendezvous data complete by LAPI's predefined completion (`AmPlacement.signal`), not a handler of MPI's. */
  readonly dataBySignal: boolean;
  readonly description: string;
}

export const AM_VARIANTS: Readonly<Record<MpiParameters['am.variant'], AmVariant>> = {
  base: { dataByCounter: false, inContext: false, dataBySignal: false, description: 'completion handlers on the completion thread (a thread switch each)' },
  counters: { dataByCounter: true, inContext: false, dataBySignal: false, description: 'data completion by target counters; handshake completion handlers on the completion thread' },
  enhanced: {
    dataByCounter: false,
    inContext: true,
    dataBySignal: true,
    description: "data completion by LAPI's predefined completion, handshake completion handlers in the dispatcher's context (no thread switch)",
  },
};
