/**
 * CPU one-sided communication spends at a target or an origin, charged to a simulated rank's clock
 * (no-op on wall-clock time). Not fitted to any figure: an accumulate's element is a load, an op and
 * a store (about 2 ns on the ~1 GHz CPUs of the papers' machines); a lock step (grant, queue, release)
 * is a few compares and a queue operation, priced like a matching step (adi/costs.ts). Copies are
 * charged by size at the machine's copy speed (`clock.chargeCopy`).
 */
export const OP_ELEMENT_NS = 2;
export const LOCK_STEP_NS = 100;
/** Decoding a control message's header (and its program) and choosing what to do with it. */
export const DISPATCH_NS = 100;
