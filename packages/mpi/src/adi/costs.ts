/**
 * CPU the library itself spends, charged to a simulated rank's clock (no-op on wall-clock time).
 * Not from the papers: a matching step is a hash lookup and up to four queue-head compares, about
 * 100 ns on the ~1 GHz CPUs of the papers' machines; copies are charged by size at the machine's copy
 * speed (`clock.chargeCopy`).
 */
export const MATCH_NS = 100;

/**
 * With `mpi.matching=linear`, what scanning one queue entry costs (a posted receive or an unexpected
 * message compared against a new receive). Not from the papers, and not a documented figure of any
 * machine: an assumed one dependent load per list entry at about main-memory latency, 100 ns, the
 * same order as MATCH_NS. The FMPL paper's Hitachi MPI figures (Table 2) were not used to choose it.
 */
export const LINEAR_SCAN_ENTRY_NS = 100;
