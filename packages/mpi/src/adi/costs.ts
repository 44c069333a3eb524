/**
 * CPU the library itself spends, charged to a simulated rank's clock (no-op on wall-clock time).
 * Not from the papers: a matching step is a hash lookup and up to four queue-head compares, about
 * 100 ns on the ~1 GHz CPUs of the papers' machines; copies are charged by size at the machine's copy
 * speed (`clock.chargeCopy`).
 */
export const MATCH_NS = 100;
